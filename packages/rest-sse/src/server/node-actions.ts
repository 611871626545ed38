import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Agent, checkedOutput, pacedEvents } from '@agentport/core';
import {
  agentFailure,
  createSSEWriter,
  parseJsonText,
  pumpAgentEvents,
  type SSEWriter,
  type SSEWriterOptions,
  sseErrorMessage,
} from '@agentport/http';
import {
  type AnswerHeaders,
  callerSignal,
  readBody,
  writeAnswer,
  writeErrorAnswer,
} from '@agentport/http/node';
import { invokeRequestSchema } from './invoke-request.ts';

/** What Hono's `context.json` answers with, so both paths send the same head. */
const RESULT_CONTENT_TYPE = 'application/json';

async function run(
  agent: Agent,
  body: Buffer,
  response: ServerResponse,
  headers: AnswerHeaders | undefined,
): Promise<void> {
  // The caller going away aborts the agent, as the request's signal does on the Hono route.
  const caller = callerSignal(response);
  try {
    const { input } = parseJsonText(body, invokeRequestSchema);
    let result: string;
    try {
      result = checkedOutput(await agent.invoke(input, { signal: caller.signal }), agent.name);
    } catch (error) {
      throw agentFailure(error, agent.name);
    }
    const answer = JSON.stringify({ result });
    writeAnswer(response, 200, { 'content-type': RESULT_CONTENT_TYPE }, answer, headers);
  } catch (error) {
    writeErrorAnswer(response, error, headers);
  } finally {
    caller.dispose();
  }
}

/**
 * Starts an agent's run on an open SSE writer: its events become SSE events; a run that cannot
 * start ends the stream with an `error` event. What both stream routes (Hono and Node) do.
 */
export function streamAgentInto(writer: SSEWriter, agent: Agent, input: string): void {
  try {
    // A hand-written agent's stream gives the event loop turns as a defineAgent one does.
    const events = pacedEvents(agent.stream(input, { signal: writer.signal }));
    pumpAgentEvents(events, writer, agent.name);
  } catch (error) {
    // A stream that throws on call is the agent's failure, written as the pump writes one.
    writer.write({ ...sseErrorMessage(agentFailure(error, agent.name)), id: 1 });
    writer.close();
  }
}

/** The writer options of a stream route (the rest come from the call). */
export type StreamWriterOptions = Pick<
  SSEWriterOptions,
  'heartbeatMs' | 'maxBufferedBytes' | 'shutdownSignal'
>;

/**
 * Answers `POST /{name}/stream` on Node's own request and response, as the Hono route does: a
 * body error is a JSON error answer, otherwise an SSE stream of the agent's events written
 * straight to the response, with `headers` in its head. The request must have passed
 * `hasPlainJsonBody`.
 */
export function streamOnNode(
  agent: Agent,
  request: IncomingMessage,
  response: ServerResponse,
  headers: AnswerHeaders | undefined,
  options: StreamWriterOptions,
): void {
  readBody(request, (body) => {
    let input: string;
    try {
      input = parseJsonText(body, invokeRequestSchema).input;
    } catch (error) {
      writeErrorAnswer(response, error, headers);
      return;
    }
    let writer: SSEWriter;
    try {
      writer = createSSEWriter(response, {
        heartbeatMs: options.heartbeatMs,
        maxBufferedBytes: options.maxBufferedBytes,
        shutdownSignal: options.shutdownSignal,
        ...(headers === undefined ? {} : { headers }),
      });
    } catch {
      // The response is gone already (the caller left as its body arrived): nobody to stream to.
      return;
    }
    streamAgentInto(writer, agent, input);
  });
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
  readBody(request, (body) => void run(agent, body, response, headers));
}
