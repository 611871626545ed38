import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Node's default keep-alive timeout, which `listen` keeps. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** Node's response in progress on a connection (the field its own `closeIdleConnections` reads). */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

/** The sweep of a server's idle connections. */
export interface IdleSweep {
  /** Stops it (the connections are left as they are). */
  stop(): void;
  /** How many connections it watches: those open. */
  readonly watched: number;
}

/**
 * How often connections are looked at: a fiftieth of the timeout, from 10 to 100 ms (so that the
 * connections of a burst of idle clients are not all closed at the same moment: a client that
 * ignores `Keep-Alive: timeout=N` then reuses more of them as they close).
 */
export function sweepIntervalOf(keepAliveTimeoutMs: number): number {
  return Math.max(10, Math.min(100, Math.ceil(keepAliveTimeoutMs / 50)));
}

/** What Node adds to the timeout it advertises before it closes: a fifth of it, at most 1 s. */
export function closeMarginOf(keepAliveTimeoutMs: number): number {
  return Math.min(1_000, Math.ceil(keepAliveTimeoutMs / 5));
}

/**
 * Closes the server's connections that have had no request in progress and read nothing for
 * longer than `keepAliveTimeoutMs` and {@link closeMarginOf its margin}, by up to two sweep
 * intervals: after 6.0-6.2 s idle by default, where Node closes at 6 s (it adds 1 s to the
 * timeout it advertises, so that clients which honour `Keep-Alive: timeout=5` leave first). It
 * stands in for Node's own keep-alive timer, which is set and cleared around every request of a
 * kept-alive connection (docs/decisions/0007): the server must have `keepAliveTimeout = 0`. A
 * connection that never sends a request is closed alike, where Node would keep it, and so is one
 * whose request stops arriving midway for as long (Node: the same, but for a connection's first
 * request, which only its request timeout bounds).
 */
export function closeIdleConnectionsAfter(server: Server, keepAliveTimeoutMs: number): IdleSweep {
  const intervalMs = sweepIntervalOf(keepAliveTimeoutMs);
  const quietSweeps = Math.ceil(
    (keepAliveTimeoutMs + closeMarginOf(keepAliveTimeoutMs)) / intervalMs,
  );
  // Small integers in two maps, no object per connection: every open stream holds its entry, and
  // an idle stream must cost little more than its connection.
  /** Every connection, with the bytes it had read when a sweep last saw it in use. */
  const readWhenSeen = new Map<HttpSocket, number>();
  /** The connections seen quiet (no request in progress, nothing read), from which sweep on. */
  const quietFrom = new Map<HttpSocket, number>();
  let sweep = 0;
  function forget(this: HttpSocket): void {
    readWhenSeen.delete(this);
    quietFrom.delete(this);
  }
  const onConnection = (socket: HttpSocket) => {
    // Seen quiet by the next sweep if it has read nothing by then, as one that has just finished.
    readWhenSeen.set(socket, 0);
    // One listener for all, not a closure each; a connection closed goes at once, not at the next
    // sweep (clients without keep-alive would leave thousands of dead sockets for the old
    // generation).
    socket.on('close', forget);
  };
  server.on('connection', onConnection);
  const timer = setInterval(() => {
    sweep += 1;
    for (const [socket, read] of readWhenSeen) {
      const { bytesRead } = socket;
      if (socket._httpMessage || bytesRead !== read) {
        if (bytesRead !== read) readWhenSeen.set(socket, bytesRead);
        quietFrom.delete(socket);
        continue;
      }
      const from = quietFrom.get(socket);
      if (from === undefined) {
        quietFrom.set(socket, sweep);
      } else if (sweep - from >= quietSweeps) {
        forget.call(socket);
        socket.destroy();
      }
    }
  }, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      server.off('connection', onConnection);
    },
    get watched() {
      return readWhenSeen.size;
    },
  };
}

/**
 * Makes a response advertise `Keep-Alive: timeout=N` as Node does for a server whose own
 * keep-alive timer is on (Node reads the response's copy of the server's timeout when it writes
 * the head; `listen` sets the server's to 0 and sweeps instead).
 */
export function advertiseKeepAlive(response: ServerResponse, keepAliveTimeoutMs: number): void {
  (response as ServerResponse & { _keepAliveTimeout: number })._keepAliveTimeout =
    keepAliveTimeoutMs;
}
