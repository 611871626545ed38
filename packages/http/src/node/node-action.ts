import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type ActionAnswer,
  type ActionCall,
  isStreamAnswer,
  JSON_CONTENT_TYPE,
  type RouteAction,
  searchOf,
} from '../route-action.ts';
import { createSSEWriter, type SSEWriter } from '../sse/sse-writer.ts';
import {
  type AnswerHeaders,
  type CallerSignal,
  callerSignal,
  readBody,
  writeAnswer,
  writeErrorAnswer,
} from './node-answer.ts';

/**
 * Answers one request on Node's own request and response from an action, as its Hono route does
 * (`honoAction`): the body read with `data`/`end`, the same action, the same JSON answers and
 * error mapping, the same SSE writer; `headers` are added to the answer (a request id). The
 * request must have passed `hasPlainJsonBody` with the action's limit.
 */
export type NodeAction = (
  request: IncomingMessage,
  response: ServerResponse,
  headers?: AnswerHeaders,
) => void;

/** One call on the Node path: the caller's signal is made only when the action reads it. */
class NodeCall implements ActionCall {
  readonly body: Uint8Array;
  readonly path: string;
  readonly search: string;
  readonly #response: ServerResponse;
  #caller: CallerSignal | undefined;

  constructor(body: Uint8Array, url: string, response: ServerResponse) {
    this.body = body;
    const mark = url.indexOf('?');
    this.path = mark === -1 ? url : url.slice(0, mark);
    this.search = searchOf(url);
    this.#response = response;
  }

  get signal(): AbortSignal {
    this.#caller ??= callerSignal(this.#response);
    return this.#caller.signal;
  }

  /** Stops watching the caller (once answered). */
  dispose(): void {
    this.#caller?.dispose();
  }
}

/** The writer's `headers` option: the call's (a request id) and the answer's own, if any. */
function headersOf(
  call: AnswerHeaders | undefined,
  own: Readonly<Record<string, string>> | undefined,
): { headers?: Record<string, string> } {
  if (own === undefined) return call === undefined ? {} : { headers: call };
  return { headers: call === undefined ? own : { ...call, ...own } };
}

function writeStream(
  action: RouteAction,
  answer: Extract<ActionAnswer, { stream: unknown }>,
  response: ServerResponse,
  headers: AnswerHeaders | undefined,
): void {
  const options = action.streamOptions ?? {};
  let writer: SSEWriter;
  try {
    writer = createSSEWriter(response, {
      heartbeatMs: options.heartbeatMs,
      maxBufferedBytes: options.maxBufferedBytes,
      shutdownSignal: options.shutdownSignal,
      onClose: answer.closed,
      ...headersOf(headers, answer.headers),
    });
  } catch {
    // The response is gone already (the caller left as its body arrived): nobody to stream to.
    answer.unopened?.();
    return;
  }
  answer.stream(writer);
}

async function answer(
  action: RouteAction,
  call: NodeCall,
  response: ServerResponse,
  headers: AnswerHeaders | undefined,
): Promise<void> {
  try {
    const answered = await action.run(call);
    if (isStreamAnswer(answered)) {
      writeStream(action, answered, response, headers);
      return;
    }
    const head: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE };
    if (answered.headers !== undefined) Object.assign(head, answered.headers);
    writeAnswer(response, answered.status, head, answered.json, headers);
  } catch (error) {
    writeErrorAnswer(response, error, headers);
  } finally {
    call.dispose();
  }
}

/** The Node fast path of an action (see {@link NodeAction}). */
export function nodeAction(action: RouteAction): NodeAction {
  return (request, response, headers) => {
    readBody(request, (body) => {
      void answer(action, new NodeCall(body, request.url ?? '/', response), response, headers);
    });
  };
}
