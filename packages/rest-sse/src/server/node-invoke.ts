import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Agent } from '@agentport/core';
import { parseJsonText } from '../http/json-body.ts';
import {
  type AnswerHeaders,
  callerSignal,
  readBodyText,
  writeAnswer,
  writeErrorAnswer,
} from '../http/node-answer.ts';
import { agentFailure } from './agent-events.ts';
import { invokeRequestSchema } from './invoke-request.ts';

/** What Hono's `context.json` answers with, so both paths send the same head. */
const RESULT_CONTENT_TYPE = 'application/json';

async function run(
  agent: Agent,
  text: string,
  response: ServerResponse,
  headers: AnswerHeaders | undefined,
): Promise<void> {
  // The caller going away aborts the agent, as the request's signal does on the Hono route.
  const caller = callerSignal(response);
  try {
    const { input } = parseJsonText(text, invokeRequestSchema);
    let result: string;
    try {
      result = await agent.invoke(input, { signal: caller.signal });
    } catch (error) {
      throw agentFailure(error, agent.name);
    }
    const body = JSON.stringify({ result });
    writeAnswer(response, 200, { 'content-type': RESULT_CONTENT_TYPE }, body, headers);
  } catch (error) {
    writeErrorAnswer(response, error, headers);
  } finally {
    caller.dispose();
  }
}

/**
 * Answers `POST /{name}/invoke` on Node's own request and response, as the Hono route does (same
 * status, body and errors), with `headers` added. The request must have passed
 * `hasPlainJsonBody`.
 */
export function invokeOnNode(
  agent: Agent,
  request: IncomingMessage,
  response: ServerResponse,
  headers: AnswerHeaders | undefined,
): void {
  readBodyText(request, response, (text) => void run(agent, text, response, headers));
}
