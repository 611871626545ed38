import {
  type Agent,
  type AgentEvent,
  AgentFailureError,
  type AgentPortError,
  CancellationError,
  type ErrorEvent,
} from '@agentport/core';
import {
  checkedOutput,
  errorFromEvent,
  pacedEvents,
  toAgentFailure,
} from '@agentport/core/internal';
import type { RunResponse, ToolCallResult } from './definitions.ts';

const failures = new WeakMap<ErrorEvent, AgentPortError>();

function failureEvent(failure: AgentPortError): ErrorEvent {
  const event: ErrorEvent = { type: 'error', code: failure.code, message: failure.message };
  failures.set(event, failure);
  return event;
}

/**
 * Runs an agent and yields its events, always ending with exactly one `done` or `error`: an agent
 * that throws or stops early is reported as an `error` naming the agent that was running.
 */
export async function* runEvents(
  agent: Agent,
  input: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<AgentEvent, void, undefined> {
  let current = agent.name;
  try {
    const events = pacedEvents(agent.stream(input, signal === undefined ? {} : { signal }));
    for await (const event of events) {
      if (event.type === 'handoff') current = event.to;
      yield event;
      if (event.type === 'done' || event.type === 'error') return;
    }
  } catch (error) {
    if (signal?.aborted) yield failureEvent(new CancellationError(undefined, { cause: error }));
    else yield failureEvent(toAgentFailure(error, current));
    return;
  }
  yield failureEvent(
    new AgentFailureError({
      agentName: current,
      message: `Agent '${current}' ended without a result`,
    }),
  );
}

/**
 * A hand-written agent's event field as JSON text; one JSON cannot hold (a cycle, a BigInt) fails
 * the run as a safe `agent_failure`, as the same event does on the SSE transport.
 */
function toJsonText(value: unknown, agentName: string): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (cause) {
    throw new AgentFailureError({ agentName, cause });
  }
}

/** A tool's output: its string as is, anything else JSON-encoded (see {@link toJsonText}). */
function toOutputText(value: unknown, agentName: string): string {
  return typeof value === 'string' ? value : toJsonText(value, agentName);
}

interface PendingCall {
  id: string;
  name: string;
  input: string;
  output?: string;
}

/**
 * Consumes a run's events into a RunResponse: the final output, the agent that produced it (the
 * target of the last handoff, else the agent that was asked) and every answered tool call in call
 * order; rejects with the error an `error` event reports.
 */
export async function collectRun(
  events: AsyncIterable<AgentEvent>,
  agentName: string,
): Promise<RunResponse> {
  let current = agentName;
  const calls: PendingCall[] = [];
  for await (const event of events) {
    switch (event.type) {
      case 'handoff':
        current = event.to;
        break;
      case 'tool-call':
        calls.push({
          id: event.id,
          name: event.name,
          input: toJsonText(event.input ?? {}, current),
        });
        break;
      case 'tool-result': {
        const call = calls.find((entry) => entry.id === event.id && entry.output === undefined);
        if (call !== undefined) call.output = toOutputText(event.output, current);
        break;
      }
      case 'error':
        throw failures.get(event) ?? errorFromEvent(event, current);
      case 'done': {
        const toolCalls: ToolCallResult[] = calls.flatMap(({ name, input, output }) =>
          output === undefined ? [] : [{ name, input, output }],
        );
        return {
          output: checkedOutput(event.output, current),
          agent: current,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        };
      }
      default:
        break;
    }
  }
  throw new AgentFailureError({
    agentName: current,
    message: `Agent '${current}' ended without a result`,
  });
}
