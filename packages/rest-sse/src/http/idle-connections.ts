import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Node's default keep-alive timeout, which `listen` keeps. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** What a connection looked like at the last sweep that saw it in use. */
interface Seen {
  bytesRead: number;
  /** When a sweep last saw it in use, or reading. */
  at: number;
}

/** Node's response in progress on a connection (the field its own `closeIdleConnections` reads). */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

/** How often connections are looked at, and how long past the timeout one may stay. */
export function sweepIntervalOf(keepAliveTimeoutMs: number): number {
  return Math.max(10, Math.min(1_000, Math.ceil(keepAliveTimeoutMs / 5)));
}

/**
 * Closes the server's connections that have had no request in progress and read nothing for
 * `keepAliveTimeoutMs` and one sweep interval more (6-7 s by default: Node adds 1 s to the
 * timeout it advertises too, so that clients which honour `Keep-Alive: timeout=5` leave first).
 * It stands in for Node's own keep-alive timer, which is set and cleared around every request of
 * a kept-alive connection (~2-3% of a small request's server CPU, BENCHMARKS.md item 50): the
 * server must have `keepAliveTimeout = 0`. A connection that never sends a request is closed
 * alike, where Node would keep it. Returns the function that stops the sweep.
 */
export function closeIdleConnectionsAfter(server: Server, keepAliveTimeoutMs: number): () => void {
  const intervalMs = sweepIntervalOf(keepAliveTimeoutMs);
  const idleLimitMs = keepAliveTimeoutMs + intervalMs;
  const connections = new Map<HttpSocket, Seen>();
  const onConnection = (socket: HttpSocket) => {
    connections.set(socket, { bytesRead: 0, at: performance.now() });
    socket.once('close', () => connections.delete(socket));
  };
  server.on('connection', onConnection);
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [socket, seen] of connections) {
      const { bytesRead } = socket;
      if (socket._httpMessage || bytesRead !== seen.bytesRead) {
        seen.bytesRead = bytesRead;
        seen.at = now;
      } else if (now - seen.at >= idleLimitMs) {
        connections.delete(socket);
        socket.destroy();
      }
    }
  }, intervalMs);
  sweep.unref();
  return () => {
    clearInterval(sweep);
    server.off('connection', onConnection);
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
