import {
  type Agent,
  type AgentEvent,
  AgentFailureError,
  type AgentInput,
  type AgentPortError,
  type AgentRunOptions,
  CancellationError,
  type ErrorEvent,
  isTerminalEvent,
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
  input: AgentInput,
  options: AgentRunOptions,
): AsyncGenerator<AgentEvent, void, undefined> {
  let current = agent.name;
  const { signal } = options;
  try {
    const events = pacedEvents(agent.stream(input, options));
    for await (const event of events) {
      if (event.type === 'handoff') current = event.to;
      yield event;
      if (isTerminalEvent(event)) return;
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
 * What a run's progress events say for its RunResponse: the agent that is running (the target of
 * the last handoff, else the agent that was asked) and every answered tool call in call order.
 * `see` never throws (it may watch a pushed stream): a field JSON cannot hold is kept as the
 * run's failure, thrown by `toolCalls`.
 */
export class RunCollector {
  agent: string;
  /** Whether it saw the run (a run that ran as a task is read from the task's log instead). */
  used = false;
  readonly #calls: PendingCall[] = [];
  #failure: unknown;

  constructor(agentName: string) {
    this.agent = agentName;
  }

  see(event: AgentEvent): void {
    this.used = true;
    try {
      this.#see(event);
    } catch (error) {
      this.#failure ??= error;
    }
  }

  #see(event: AgentEvent): void {
    switch (event.type) {
      case 'handoff':
        this.agent = event.to;
        break;
      case 'tool-call':
        this.#calls.push({
          id: event.id,
          name: event.name,
          input: toJsonText(event.input ?? {}, this.agent),
        });
        break;
      case 'tool-result': {
        const call = this.#calls.find(
          (entry) => entry.id === event.id && entry.output === undefined,
        );
        if (call !== undefined) call.output = toOutputText(event.output, this.agent);
        break;
      }
      default:
        break;
    }
  }

  /** The answered tool calls, in call order; throws the failure `see` kept. */
  toolCalls(): ToolCallResult[] {
    if (this.#failure !== undefined) throw this.#failure;
    return this.#calls.flatMap(({ name, input, output }) =>
      output === undefined ? [] : [{ name, input, output }],
    );
  }
}

/**
 * Consumes a run's events (as {@link runEvents} gives them) into a RunResponse of
 * `conversationId`: the final output, the agent that produced it and every answered tool call in
 * call order; rejects with the error an `error` event reports.
 */
export async function collectRun(
  events: AsyncIterable<AgentEvent>,
  agentName: string,
  conversationId: string,
): Promise<RunResponse> {
  const collector = new RunCollector(agentName);
  for await (const event of events) {
    if (event.type === 'error') throw failures.get(event) ?? errorFromEvent(event, collector.agent);
    if (event.type !== 'done') {
      collector.see(event);
      continue;
    }
    const toolCalls = collector.toolCalls();
    return {
      output: checkedOutput(event.output, collector.agent),
      agent: collector.agent,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      conversation_id: conversationId,
    };
  }
  throw new AgentFailureError({
    agentName: collector.agent,
    message: `Agent '${collector.agent}' ended without a result`,
  });
}
