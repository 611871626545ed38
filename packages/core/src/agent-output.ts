import type { AgentEvent, ErrorEvent } from './agent-event.ts';
import { AgentFailureError } from './errors/agent-failure-error.ts';
import type { AgentPortError } from './errors/agentport-error.ts';

const failures = new WeakMap<ErrorEvent, AgentPortError>();

/** Links an `error` event to the error it reports, so `invoke` can rethrow the original. */
export function rememberFailure(event: ErrorEvent, error: AgentPortError): ErrorEvent {
  failures.set(event, error);
  return event;
}

/** The error an `error` event reports: the original when known, else an AgentFailureError. */
export function errorFromEvent(event: ErrorEvent, agentName: string): AgentPortError {
  return (
    failures.get(event) ??
    new AgentFailureError({ agentName, code: event.code, message: event.message })
  );
}

/**
 * Consumes an agent's event stream and resolves with its final output, or rejects with the error
 * its `error` event reports; this is how `invoke` is derived from `stream`.
 */
export async function outputOf(
  events: AsyncIterable<AgentEvent>,
  agentName: string,
): Promise<string> {
  for await (const event of events) {
    if (event.type === 'done') return event.output;
    if (event.type === 'error') throw errorFromEvent(event, agentName);
  }
  throw new AgentFailureError({
    agentName,
    message: `Agent '${agentName}' ended without a result`,
  });
}
