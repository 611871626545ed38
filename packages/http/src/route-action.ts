import type { Context } from 'hono';
import { errorResponse } from './error-response.ts';
import { PayloadTooLargeError } from './errors/payload-too-large-error.ts';
import { declaredBodyOverLimit, limitBody, readJsonBytes } from './json-body.ts';
import type { SSEWriter, SSEWriterOptions } from './sse/sse-writer.ts';
import { openSSE } from './sse/stream-sse.ts';

/**
 * What a route's work is given, the same on the Hono app and on the Node fast path: the body's
 * bytes (within the limit, JSON in UTF-8, not encoded), where the request went, and a signal
 * that aborts when the caller goes away.
 */
export interface ActionCall {
  /** The whole body, to give to `parseJsonText`. */
  readonly body: Uint8Array;
  /** The request's whole path as the server saw it, without the query (for a `Location`). */
  readonly path: string;
  /** The query string after `?`, or empty. */
  readonly search: string;
  /** Aborts when the caller goes away before the answer; read it only when the work needs it. */
  readonly signal: AbortSignal;
}

/** A whole JSON answer: its status, its body as JSON text, and headers besides the content type. */
export interface JsonActionAnswer {
  readonly status: number;
  readonly json: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An SSE answer: `stream` owns the open writer from then on and must close it. */
export interface StreamActionAnswer {
  readonly stream: (writer: SSEWriter) => void;
  /** Headers sent with the SSE ones (a `Content-Location`, say). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Called instead of `stream` when there is nobody to stream to (the caller left first). */
  readonly unopened?: () => void;
  /** Called once the open stream has ended, for any reason (the writer's `onClose`). */
  readonly closed?: () => void;
}

/** What a route's work answers with. */
export type ActionAnswer = JsonActionAnswer | StreamActionAnswer;

/**
 * A route's work, declared once: both {@link honoAction} (the Hono app) and `nodeAction` (the
 * Node fast path, on `@agentport/http/node`) are built from it, so the two answer alike. It
 * throws what it refuses; each path answers that with the one JSON error mapping.
 */
export interface RouteAction {
  /** The largest body the route takes, in bytes (413 past it). */
  readonly maxBodyBytes: number;
  /** How the route's streams are written, when it answers with one. */
  readonly streamOptions?: ActionStreamOptions;
  run(call: ActionCall): Promise<ActionAnswer> | ActionAnswer;
}

/** The writer options of an action's streams (the rest come from the call). */
export type ActionStreamOptions = Pick<
  SSEWriterOptions,
  'heartbeatMs' | 'maxBufferedBytes' | 'shutdownSignal'
> & {
  /** On Node, write streams straight to the socket rather than through a web stream (default true). */
  readonly direct?: boolean | undefined;
};

/** The content type of every JSON answer of an action, as Hono's `context.json` sends it. */
export const JSON_CONTENT_TYPE = 'application/json';

/** Whether an answer is a stream. */
export function isStreamAnswer(answer: ActionAnswer): answer is StreamActionAnswer {
  return (answer as Partial<StreamActionAnswer>).stream !== undefined;
}

/** The query string of a URL, without its `?`, or empty. */
export function searchOf(url: string): string {
  const mark = url.indexOf('?');
  return mark === -1 ? '' : url.slice(mark + 1);
}

async function answerOnHono(context: Context, action: RouteAction): Promise<Response> {
  const body = await readJsonBytes(context);
  const call: ActionCall = {
    body,
    path: context.req.path,
    search: searchOf(context.req.url),
    // Read lazily: on @hono/node-server a request's signal costs an AbortController.
    get signal() {
      return context.req.raw.signal;
    },
  };
  const answer = await action.run(call);
  if (isStreamAnswer(answer)) {
    const { headers, closed } = answer;
    const options =
      headers === undefined && closed === undefined
        ? action.streamOptions
        : { ...action.streamOptions, headers, onClose: closed };
    return openSSE(context, answer.stream, options, answer.unopened);
  }
  return context.body(answer.json, answer.status as 200, {
    'content-type': JSON_CONTENT_TYPE,
    ...answer.headers,
  });
}

/**
 * The Hono handler of an action: the body limit (a declared length judged from the header, a
 * chunked body counted as it arrives), the JSON body read, the action run and its answer; what
 * it throws is answered with the one JSON error mapping, as on the Node path.
 */
export function honoAction(action: RouteAction): (context: Context) => Promise<Response> {
  const { maxBodyBytes } = action;
  const counting = limitBody(maxBodyBytes);
  return async function answerAction(context) {
    const over = declaredBodyOverLimit(context, maxBodyBytes);
    if (over === true) return errorResponse(new PayloadTooLargeError(maxBodyBytes, true));
    try {
      if (over === false) return await answerOnHono(context, action);
      let response: Response | undefined;
      const refused = await counting(context, async () => {
        response = await answerOnHono(context, action);
      });
      return refused ?? (response as Response);
    } catch (error) {
      return errorResponse(error);
    }
  };
}
