import { type AgentEvent, AgentFailureError, AgentPortError } from '@agentport/core';
import type { SSEWriter } from '../sse/sse-writer.ts';
import { sseErrorMessage } from '../sse/sse-writer.ts';

/** The error an agent's run reports: its own AgentPortError, else a safe `agent_failure`. */
export function agentFailure(error: unknown, agentName: string): AgentPortError {
  if (AgentPortError.isInstance(error)) return error;
  return new AgentFailureError({ agentName, cause: error });
}

/**
 * Writes an agent run's events as SSE events (`event` = its type, `data` = its other fields as
 * JSON, `id` counting from 1), ending with `done` or `error` (whose data is `{ code, message }`,
 * like every SSE error event). Run the agent with the writer's signal, so it stops when the
 * stream ends for any reason.
 *
 * @example
 * streamSSE(context, (writer) =>
 *   writeAgentEvents(agent.stream(input, { signal: writer.signal }), writer, agent.name),
 * );
 */
export async function writeAgentEvents(
  events: AsyncIterable<AgentEvent>,
  writer: SSEWriter,
  agentName: string,
): Promise<void> {
  let id = 0;
  try {
    for await (const { type, ...data } of events) {
      id += 1;
      const written = writer.write({ event: type, data: JSON.stringify(data), id });
      if (!written || type === 'done' || type === 'error') return;
    }
  } catch (error) {
    writer.write({ ...sseErrorMessage(agentFailure(error, agentName)), id: id + 1 });
    return;
  }
  const unfinished = new AgentFailureError({
    agentName,
    message: `Agent '${agentName}' ended without a result`,
  });
  writer.write({ ...sseErrorMessage(unfinished), id: id + 1 });
}
