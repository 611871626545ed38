import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
// Node's own, which test fake timers leave alone: an answer on a real socket needs no clock.
import { setImmediate } from 'node:timers';
import { errorAnswer } from '../error-response.ts';
import { isJsonContentType } from '../json-body.ts';
import { BatchingServerResponse } from './batching-response.ts';

/** Headers added to an answer, such as a request id. */
export type AnswerHeaders = Readonly<Record<string, string>>;

/**
 * The Node fast path of a server that mounts anywhere: answers a request it can answer alone
 * straight on Node's request and response and returns true, or returns false having read nothing,
 * and the server's Hono app serves it. `path` is the request's path (and query) under where the
 * app is mounted (default: the request's URL); `headers` are added to the answer.
 */
export type NodeRouteHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  path?: string,
  headers?: AnswerHeaders,
) => boolean;

/**
 * Whether a Node request has a body a Node fast path can take alone: a declared length within
 * `maxBytes` (a chunked body is counted by the Hono route's limit), a JSON content type and no
 * `Content-Encoding` (the Hono route answers the 415s).
 */
export function hasPlainJsonBody(request: IncomingMessage, maxBytes: number): boolean {
  const { headers } = request;
  const length = headers['content-length'];
  return (
    length !== undefined &&
    headers['transfer-encoding'] === undefined &&
    headers['content-encoding'] === undefined &&
    Number(length) <= maxBytes &&
    isJsonContentType(headers['content-type'])
  );
}

/**
 * Reads a Node request's whole body with `data`/`end` and calls `then` with its bytes (give them
 * to `parseJsonText`, which decodes them as the Hono routes do). When the body breaks off (the
 * caller left), `then` is never called: Node destroys the socket, and with it the response (an
 * `IncomingMessage` emits no `error` to nobody listening).
 */
export function readBody(request: IncomingMessage, then: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  const onData = (chunk: Buffer) => chunks.push(chunk);
  const onEnd = () => {
    // Nothing of the body stays referenced from the request for a stream's life.
    request.removeListener('data', onData);
    request.removeListener('end', onEnd);
    then(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
  };
  request.on('data', onData);
  request.on('end', onEnd);
}

/** An answer waiting for the end of the event loop's turn. */
interface DueAnswer {
  readonly response: ServerResponse;
  readonly status: number;
  readonly head: Record<string, string | number>;
  readonly body: string;
}

/** The answers of this turn of the event loop, written together by `writeDue`. */
let due: DueAnswer[] = [];

/**
 * Whether the server a response belongs to has stopped listening (`server.close()`, as `listen`
 * does when stopping): its connections take no more requests. Node still answers `keep-alive`
 * then, and closes the connection only once idle, which races a client's next request on it.
 */
function serverClosed(response: ServerResponse): boolean {
  const socket = response.socket as (Socket & { server?: { listening?: boolean } }) | null;
  return socket?.server?.listening === false;
}

function writeNow({ response, status, head, body }: DueAnswer): void {
  // The caller left meanwhile: Node would drop the write, after building an error for it.
  if (response.destroyed) return;
  if (serverClosed(response)) head.connection = 'close';
  try {
    response.writeHead(status, head);
    response.end(body);
  } catch {
    // A head Node refuses (a header value it will not send): no answer rather than a crash.
    response.destroy();
  }
}

function writeDue(): void {
  const answers = due;
  due = [];
  for (const answer of answers) writeNow(answer);
}

/**
 * Writes a whole answer: `head` (given to `writeHead`, with the length and `headers` added) and
 * `body`; never throws (a head Node refuses ends the connection instead).
 *
 * The answer leaves once Node has read every request ready in this turn of the event loop
 * (`setImmediate`), together with the other answers due by then. Under load the client gets its
 * answers in bursts, so it is woken once per burst rather than once per answer: on a VM a
 * cross-CPU wake-up is a costly exit to the host (docs/decisions/0006). A lone request waits for
 * one `setImmediate`.
 * A `BatchingServerResponse` (as `listen` serves with) is ended at once: it holds the bytes itself.
 */
export function writeAnswer(
  response: ServerResponse,
  status: number,
  head: Record<string, string | number>,
  body: string,
  headers: AnswerHeaders | undefined,
): void {
  head['content-length'] = Buffer.byteLength(body);
  if (headers !== undefined) for (const name in headers) head[name] = headers[name] as string;
  const answer: DueAnswer = { response, status, head, body };
  // Served by `listen`, the response holds its writes until the end of the turn itself.
  if (response instanceof BatchingServerResponse) {
    writeNow(answer);
    return;
  }
  if (due.length === 0) setImmediate(writeDue);
  due.push(answer);
}

/** Writes the JSON error answer of anything thrown (see `errorAnswer`), with `headers` added. */
export function writeErrorAnswer(
  response: ServerResponse,
  error: unknown,
  headers: AnswerHeaders | undefined,
): void {
  const failed = errorAnswer(error);
  writeAnswer(response, failed.status, failed.headers, failed.body, headers);
}

/** A signal that aborts when the caller goes away before its answer is written. */
export interface CallerSignal {
  readonly signal: AbortSignal;
  /** Stops watching the response (once answered). */
  dispose(): void;
}

/**
 * Watches a Node response: its `signal` aborts when the response closes before it finished (the
 * caller left), as a request's signal does on the Hono route.
 */
export function callerSignal(response: ServerResponse): CallerSignal {
  const controller = new AbortController();
  const onClose = () => {
    if (!response.writableFinished) controller.abort();
  };
  response.on('close', onClose);
  if (response.destroyed) controller.abort();
  return { signal: controller.signal, dispose: () => response.removeListener('close', onClose) };
}
