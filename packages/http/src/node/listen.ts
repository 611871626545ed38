import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentPortError } from '@agentport/core';
import { getRequestListener, RequestError } from '@hono/node-server';
import { errorResponse } from '../error-response.ts';
import { BatchingServerResponse } from './batching-response.ts';
import { answerClientError, answerExpectationFailed } from './client-error.ts';
import {
  advertiseKeepAlive,
  closeIdleConnectionsAfter,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  type IdleSweep,
} from './idle-connections.ts';

const SWEEP_INTERVAL_MS = 25;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Node's own limit on how long request headers may take to arrive. */
const NODE_HEADERS_TIMEOUT_MS = 60_000;

/**
 * Node's request timers, from `requestTimeoutMs`: the headers must come within it too (Node
 * refuses a longer headers timeout), and Node looks for late requests every quarter of it (every
 * 30 s by default), so one is cut between 1 and 1.25 times the timeout.
 */
export function requestTimers(requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS) {
  if (requestTimeoutMs === 0) return { requestTimeout: 0 };
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(requestTimeoutMs, NODE_HEADERS_TIMEOUT_MS),
    connectionsCheckingInterval: Math.max(10, Math.min(30_000, Math.ceil(requestTimeoutMs / 4))),
  };
}

/** Something with a web-standard fetch handler, such as a Hono app. */
export interface FetchApp {
  fetch: (request: Request, ...rest: never[]) => Response | Promise<Response>;
}

/** Options of {@link listen}. */
export interface ListenOptions {
  /** The port; 0 picks a free one (default 0). */
  port?: number;
  /** The address to bind (default 127.0.0.1). */
  hostname?: string;
  /** Aborting it stops the server: no new connections, in-flight requests finish. */
  signal?: AbortSignal;
  /** Called once listening, with the bound address and its base URL. */
  onListen?: (address: ListenAddress) => void;
  /** After the signal aborts, connections still open after this long are closed (default 10 s). */
  shutdownTimeoutMs?: number;
  /**
   * How long a request may take to arrive, headers and body, in ms (default 30 s; 0 for no
   * limit): one still arriving then is answered 408 `request_timeout` and its connection closed,
   * so a client trickling a body in does not hold a connection for Node's 300 s. Answers may take
   * longer (long-polls, streams): only the request's arrival is timed.
   */
  requestTimeoutMs?: number;
  /**
   * How long a kept-alive connection may wait for its next request, in ms (default 5 s, as
   * Node's; 0 keeps idle connections open): advertised as `Keep-Alive: timeout=N` (in whole
   * seconds), and a connection with no request in progress that has read nothing for this long
   * and a fifth of it more (at most 1 s, as Node; then up to 0.2 s later) is closed, one that
   * never sent a request too. Set it above the idle timeout of a load balancer in front, so that
   * the balancer closes first.
   */
  keepAliveTimeoutMs?: number;
  /**
   * Tried first for every request: answers it straight on Node's request and response and
   * returns true, or returns false (having touched nothing) and the app serves it. A fast path
   * for hot routes, such as `RestServer.handleNode`.
   */
  handleNode?: (request: IncomingMessage, response: ServerResponse) => boolean;
}

/** Where a server listens. */
export interface ListenAddress {
  hostname: string;
  port: number;
  /** `http://hostname:port`, with IPv6 addresses in brackets. */
  url: string;
}

/** Listening failed: the port is busy, the address is not local, or similar. */
export class ListenError extends AgentPortError {
  /** The system error code, such as EADDRINUSE. */
  readonly systemCode: string | undefined;

  constructor(address: string, cause: unknown) {
    const systemCode = (cause as NodeJS.ErrnoException | undefined)?.code;
    const reason =
      systemCode === 'EADDRINUSE'
        ? 'the address is already in use'
        : systemCode === 'EADDRNOTAVAIL' || systemCode === 'ENOTFOUND'
          ? 'the address is not available on this machine'
          : systemCode === 'EACCES'
            ? 'permission denied'
            : (systemCode ?? 'unknown error');
    super({ code: 'listen_failed', message: `Cannot listen on ${address}: ${reason}`, cause });
    this.name = 'ListenError';
    this.systemCode = systemCode;
  }
}

/**
 * The answer to a request the app never saw: one Node parsed but no `Request` can be made of (a
 * `Host` with a space, a backslash in the path) is a JSON 400 `bad_request`, not an empty one;
 * an app that throws instead of answering (Hono apps answer their own errors) a JSON 500. The
 * `errorHandler` of @hono/node-server's `getRequestListener` in `listen`, for other listeners too.
 *
 * @example
 * const listener = getRequestListener(app.fetch, { errorHandler: answerUnservable });
 */
export function answerUnservable(error: unknown): Response {
  if (error instanceof RequestError) {
    return errorResponse(
      new AgentPortError({
        code: 'bad_request',
        message: 'Malformed request: its URL or Host cannot be read',
        status: 400,
        cause: error,
      }),
    );
  }
  return errorResponse(error);
}

/**
 * For a request with `Expect: 100-continue`: sends the `100 Continue` when its body is first read
 * (Node sends it before any handler runs), so a request refused from its head alone (401, 404, 413
 * from `Content-Length`, 415) gets that answer and nothing else, and its client need not send the
 * body (Node then closes the connection after the answer, since the client may send it anyway).
 */
function continueOnRead(request: IncomingMessage, response: ServerResponse): void {
  const read = request._read;
  request._read = function readAfterContinue(size) {
    request._read = read;
    if (!response.headersSent) response.writeContinue();
    read.call(this, size);
  };
}

/** The request listener of `listen`: the Node fast path first, the app for the rest. */
function createServeListener(
  app: FetchApp,
  options: ListenOptions,
  hostname: string,
  keepAliveTimeoutMs: number,
): (request: IncomingMessage, response: ServerResponse) => void {
  const { handleNode } = options;
  const listener = getRequestListener(app.fetch as never, {
    hostname,
    autoCleanupIncoming: true,
    errorHandler: answerUnservable,
  }) as (request: IncomingMessage, response: ServerResponse) => Promise<void>;
  return (request, response) => {
    if (keepAliveTimeoutMs > 0) advertiseKeepAlive(response, keepAliveTimeoutMs);
    let handled = false;
    try {
      handled = handleNode?.(request, response) ?? false;
    } catch {
      // A fast path that fails before taking the request leaves it to the app.
    }
    if (!handled) void listener(request, response);
  };
}

/** A Node server for `listen`: batched answers, request timers, JSON answers to bad requests. */
function createListenServer(
  options: ListenOptions,
  serve: (request: IncomingMessage, response: ServerResponse) => void,
): Server {
  const server = createServer(
    {
      ...requestTimers(options.requestTimeoutMs),
      ServerResponse: BatchingServerResponse,
      // No timer set and cleared around every request: idle connections are swept instead.
      keepAliveTimeout: 0,
    },
    serve,
  );
  server.on('clientError', answerClientError);
  server.on('checkExpectation', answerExpectationFailed);
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    continueOnRead(request, response);
    serve(request, response);
  });
  return server;
}

/**
 * Stops a server: no new connections, idle ones closed at once and again every sweep, the rest
 * after `shutdownTimeoutMs`; `stopped` runs once every connection has closed.
 */
function stopServer(server: Server, shutdownTimeoutMs: number, stopped: () => void): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let sweeper: ReturnType<typeof setInterval> | undefined;
  server.close(() => {
    clearTimeout(timer);
    clearInterval(sweeper);
    // Connections closed at the timeout emit `close`, and their responses theirs (access log
    // lines, clean-ups), after the server's own: in the close phase of this turn of the event
    // loop, which a timer of the next turn follows (no per-connection tracking needed).
    setTimeout(stopped, 0);
  });
  if (!('closeIdleConnections' in server)) return;
  // Keep-alive connections go as soon as their last request is answered, not at the timeout.
  server.closeIdleConnections();
  sweeper = setInterval(() => server.closeIdleConnections(), SWEEP_INTERVAL_MS);
  sweeper.unref();
  timer = setTimeout(() => server.closeAllConnections(), shutdownTimeoutMs);
  timer.unref();
}

/** What `onListen` is told of a listening server. */
function addressOf(server: Server): ListenAddress {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { hostname: address.address, port: address.port, url: `http://${host}:${address.port}` };
}

/**
 * Serves a fetch app on Node until `signal` aborts; resolves once the server has stopped and the
 * port is released, rejects with a {@link ListenError} when it cannot listen.
 *
 * @example
 * const controller = new AbortController();
 * await listen(app, { port: 8080, signal: controller.signal, onListen: ({ url }) => console.log(url) });
 */
export function listen(app: FetchApp, options: ListenOptions = {}): Promise<void> {
  const hostname = options.hostname ?? '127.0.0.1';
  const port = options.port ?? 0;
  const { signal } = options;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const keepAliveTimeoutMs = options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS;
    if (!(Number.isFinite(keepAliveTimeoutMs) && keepAliveTimeoutMs >= 0)) {
      reject(new RangeError(`keepAliveTimeoutMs must be a number >= 0, not ${keepAliveTimeoutMs}`));
      return;
    }
    const serve = createServeListener(app, options, hostname, keepAliveTimeoutMs);
    const server = createListenServer(options, serve);
    // Started once listening: a listen that fails leaves no sweep behind.
    let idleSweep: IdleSweep | undefined;
    const stop = () =>
      stopServer(server, options.shutdownTimeoutMs ?? 10_000, () => {
        idleSweep?.stop();
        resolve();
      });
    server.listen(port, hostname);
    server.once('error', (error) => {
      signal?.removeEventListener('abort', stop);
      reject(new ListenError(`${hostname}:${port}`, error));
    });
    server.once('listening', () => {
      if (keepAliveTimeoutMs > 0) idleSweep = closeIdleConnectionsAfter(server, keepAliveTimeoutMs);
      // The signal may have aborted while the server was starting.
      if (signal?.aborted) {
        stop();
        return;
      }
      signal?.addEventListener('abort', stop, { once: true });
      options.onListen?.(addressOf(server));
    });
  });
}
