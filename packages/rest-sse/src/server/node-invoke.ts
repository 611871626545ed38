import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Agent } from '@agentport/core';
import { errorAnswer } from '../http/error-response.ts';
import { isJsonContentType, parseJsonText } from '../http/json-body.ts';
import { agentFailure } from './agent-events.ts';
import { invokeRequestSchema } from './invoke-request.ts';

/** Headers added to an answer, such as a request id. */
export type AnswerHeaders = Readonly<Record<string, string>>;

/** What Hono's `context.json` answers with, so both paths send the same head. */
const RESULT_CONTENT_TYPE = 'application/json';

/**
 * Whether a Node request has a body the Node path can take alone: a declared length within
 * `maxBytes` (a chunked body is counted by the Hono path's limit) and a JSON content type (the
 * Hono path answers the 415).
 */
export function hasPlainJsonBody(request: IncomingMessage, maxBytes: number): boolean {
  const { headers } = request;
  const length = headers['content-length'];
  return (
    length !== undefined &&
    headers['transfer-encoding'] === undefined &&
    Number(length) <= maxBytes &&
    isJsonContentType(headers['content-type'])
  );
}

function answer(
  response: ServerResponse,
  status: number,
  head: Record<string, string | number>,
  body: string,
  headers: AnswerHeaders | undefined,
): void {
  head['content-length'] = Buffer.byteLength(body);
  if (headers !== undefined) for (const name in headers) head[name] = headers[name] as string;
  response.writeHead(status, head);
  response.end(body);
}

async function run(
  agent: Agent,
  text: string,
  response: ServerResponse,
  headers: AnswerHeaders | undefined,
): Promise<void> {
  // The caller going away aborts the agent, as the request's signal does on the Hono path.
  const controller = new AbortController();
  const onClose = () => {
    if (!response.writableFinished) controller.abort();
  };
  response.once('close', onClose);
  if (response.destroyed) controller.abort();
  try {
    const { input } = parseJsonText(text, invokeRequestSchema);
    let result: string;
    try {
      result = await agent.invoke(input, { signal: controller.signal });
    } catch (error) {
      throw agentFailure(error, agent.name);
    }
    const body = JSON.stringify({ result });
    answer(response, 200, { 'content-type': RESULT_CONTENT_TYPE }, body, headers);
  } catch (error) {
    const failed = errorAnswer(error);
    answer(response, failed.status, failed.headers, failed.body, headers);
  } finally {
    response.off('close', onClose);
  }
}

/**
 * Answers `POST /{name}/invoke` on Node's own request and response: the body read with
 * `data`/`end`, parsed and answered as the Hono route does (same status, body and errors), with
 * `headers` added. The request must have passed {@link hasPlainJsonBody}.
 */
export function invokeOnNode(
  agent: Agent,
  request: IncomingMessage,
  response: ServerResponse,
  headers: AnswerHeaders | undefined,
): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.once('end', () => {
    const text =
      chunks.length === 1 ? (chunks[0] as Buffer).toString() : Buffer.concat(chunks).toString();
    void run(agent, text, response, headers);
  });
  // The body broke off (the caller left): nobody is there to answer.
  request.once('error', () => response.destroy());
}
