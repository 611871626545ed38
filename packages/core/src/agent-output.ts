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

const PUSH_EVENTS = Symbol.for('agentport.agent-events.push');

interface PushedEvents {
  [PUSH_EVENTS]?: (observer: {
    next(event: AgentEvent): boolean;
    error(error: unknown): void;
    complete(): void;
  }) => void;
}

function endedWithoutResult(agentName: string): AgentFailureError {
  return new AgentFailureError({
    agentName,
    message: `Agent '${agentName}' ended without a result`,
  });
}

/**
 * Consumes an agent's event stream and resolves with its final output, or rejects with the error
 * its `error` event reports; this is how `invoke` is derived from `stream`. A `defineAgent`
 * stream is pushed (see run-stream.ts) rather than iterated: no promise per event.
 */
export function outputOf(events: AsyncIterable<AgentEvent>, agentName: string): Promise<string> {
  const push = (events as PushedEvents)[PUSH_EVENTS];
  if (push === undefined) return pulledOutputOf(events, agentName);
  return new Promise((resolve, reject) => {
    let settled = false;
    push.call(events, {
      next(event) {
        if (event.type === 'done') {
          settled = true;
          resolve(event.output);
          return false;
        }
        if (event.type === 'error') {
          settled = true;
          reject(errorFromEvent(event, agentName));
          return false;
        }
        return true;
      },
      error(error) {
        settled = true;
        reject(error);
      },
      complete() {
        if (!settled) reject(endedWithoutResult(agentName));
      },
    });
  });
}

async function pulledOutputOf(
  events: AsyncIterable<AgentEvent>,
  agentName: string,
): Promise<string> {
  for await (const event of events) {
    if (event.type === 'done') return event.output;
    if (event.type === 'error') throw errorFromEvent(event, agentName);
  }
  throw endedWithoutResult(agentName);
}
