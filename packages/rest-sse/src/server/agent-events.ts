import { type Agent, AgentFailureError, AgentPortError, type ErrorEvent } from '@agentport/core';
import type { SSEWriter } from '../sse/sse-writer.ts';

/** The error an agent's run reports: its own AgentPortError, else a safe `agent_failure`. */
export function agentFailure(error: unknown, agentName: string): AgentPortError {
  if (AgentPortError.isInstance(error)) return error;
  return new AgentFailureError({ agentName, cause: error });
}

function errorEvent(error: AgentPortError): ErrorEvent {
  return { type: 'error', code: error.code, message: error.message };
}

/**
 * Runs an agent and writes each of its events as one SSE event (`event` = its type, `data` = its
 * JSON, `id` counting from 1); the stream ends with `done` or `error`, and the agent's signal is
 * the writer's, so it stops when the stream ends for any reason.
 */
export async function writeAgentEvents(
  agent: Agent,
  input: string,
  writer: SSEWriter,
): Promise<void> {
  let id = 0;
  try {
    for await (const event of agent.stream(input, { signal: writer.signal })) {
      id += 1;
      const written = writer.write({ event: event.type, data: JSON.stringify(event), id });
      if (!written || event.type === 'done' || event.type === 'error') return;
    }
  } catch (error) {
    const failure = errorEvent(agentFailure(error, agent.name));
    writer.write({ event: 'error', data: JSON.stringify(failure), id: id + 1 });
    return;
  }
  const unfinished = new AgentFailureError({
    agentName: agent.name,
    message: `Agent '${agent.name}' ended without a result`,
  });
  writer.write({ event: 'error', data: JSON.stringify(errorEvent(unfinished)), id: id + 1 });
}
