import type { Agent, AgentInput, AgentRunOptions } from './agent.ts';
import type { AgentEvent } from './agent-event.ts';
import { checkedOutput, errorFromEvent } from './agent-output.ts';
import type { AgentPortError } from './errors/agentport-error.ts';
import { toAgentFailure } from './errors/to-agent-failure.ts';
import { PUSH_EVENTS, type PushedEvents } from './internal/push-events.ts';

/** Called with each failed run of an observed agent (see {@link observeFailures}). */
export type AgentFailureListener = (error: AgentPortError, agentName: string) => void;

/** The codes of a run that was canceled or paused for its caller, which are not failures. */
const NOT_FAILURES: ReadonlySet<string> = new Set(['canceled', 'input_required']);

/**
 * Wraps an agent so that every run that fails is reported to `onFailure` once, with the error as
 * callers are told it (an AgentPort error as raised, anything else an `AgentFailureError` keeping
 * the original as its `cause`): an `invoke` that throws or rejects, a `stream` that throws (on
 * call or on a step) or ends with an `error` event, and a final output that is not a string
 * (which fails the run where it is read: see `checkedOutput`). Canceled runs are not failures.
 * The wrapper has the agent's identity and tools, and runs exactly what it runs; its handoff
 * targets are observed the same way. Calls with the same listener wrap an agent once, so a target
 * reached from several agents (or a cycle of handoffs) is one wrapper. A listener that throws is
 * ignored. For logging what callers are only told in general terms
 * (`agent_failure`, "Agent 'x' failed").
 *
 * @example
 * const logged = observeFailures(agent, (error, name) => console.error(name, error.cause ?? error));
 */
export function observeFailures(agent: Agent, onFailure: AgentFailureListener): Agent {
  let wrappers = observedBy.get(onFailure);
  if (wrappers === undefined) {
    wrappers = new WeakMap();
    observedBy.set(onFailure, wrappers);
  }
  return observed(agent, onFailure, wrappers);
}

/** The wrappers made for each listener, so that an agent reached twice is wrapped once. */
const observedBy = new WeakMap<AgentFailureListener, WeakMap<Agent, Agent>>();

/** Reports one agent's failed runs to a listener, with the error as callers are told it. */
class FailureReporter {
  readonly #name: string;
  readonly #onFailure: AgentFailureListener;

  constructor(name: string, onFailure: AgentFailureListener) {
    this.#name = name;
    this.#onFailure = onFailure;
  }

  /** What a run threw or ended with, unless it was canceled. */
  error(error: unknown): void {
    const failure = toAgentFailure(error, this.#name);
    if (NOT_FAILURES.has(failure.code)) return;
    try {
      this.#onFailure(failure, this.#name);
    } catch {
      // Reporting must never change what the run does.
    }
  }

  /** A final output that is not a string fails the run wherever it is read (checkedOutput). */
  output(output: unknown): void {
    if (typeof output === 'string') return;
    try {
      checkedOutput(output, this.#name);
    } catch (error) {
      this.error(error);
    }
  }

  /** An event of a run: its `error`, or its `done` with an output that is not a string. */
  event(event: AgentEvent): void {
    if (event.type === 'error') this.error(errorFromEvent(event, this.#name));
    else if (event.type === 'done') this.output(event.output);
  }
}

function observed(
  agent: Agent,
  onFailure: AgentFailureListener,
  wrappers: WeakMap<Agent, Agent>,
): Agent {
  const known = wrappers.get(agent);
  if (known !== undefined) return known;
  const reporter = new FailureReporter(agent.name, onFailure);
  // Handoff targets are observed too (filled in below: a handoff may lead back to this agent).
  const handoffs: Agent[] = [];
  const wrapper: Agent = {
    name: agent.name,
    ...(agent.description === undefined ? {} : { description: agent.description }),
    ...(agent.instructions === undefined ? {} : { instructions: agent.instructions }),
    ...(agent.model === undefined ? {} : { model: agent.model }),
    ...(agent.inputModes === undefined ? {} : { inputModes: agent.inputModes }),
    ...(agent.outputModes === undefined ? {} : { outputModes: agent.outputModes }),
    ...(agent.retrySafe === true && { retrySafe: true }),
    tools: agent.tools,
    handoffs,
    invoke(input: AgentInput, options?: AgentRunOptions): Promise<string> {
      return observedInvoke(agent, reporter, input, options);
    },
    stream(input: AgentInput, options?: AgentRunOptions): AsyncIterable<AgentEvent> {
      return observedStream(agent, reporter, input, options);
    },
  };
  wrappers.set(agent, wrapper);
  for (const target of agent.handoffs) handoffs.push(observed(target, onFailure, wrappers));
  return wrapper;
}

/** An agent's `invoke`, reporting what fails: a throw on call, a rejection, a non-string output. */
function observedInvoke(
  agent: Agent,
  reporter: FailureReporter,
  input: AgentInput,
  options: AgentRunOptions | undefined,
): Promise<string> {
  let running: Promise<string>;
  try {
    running = agent.invoke(input, options);
  } catch (error) {
    reporter.error(error);
    throw error;
  }
  return running.then(
    (output) => {
      reporter.output(output);
      return output;
    },
    (error: unknown) => {
      reporter.error(error);
      throw error;
    },
  );
}

/**
 * An agent's `stream`, reporting what fails: a throw on call or on a step, an `error` event, a
 * non-string output. A stream that can push its events still can: consumers that test for it
 * keep that path.
 */
function observedStream(
  agent: Agent,
  reporter: FailureReporter,
  input: AgentInput,
  options: AgentRunOptions | undefined,
): AsyncIterable<AgentEvent> {
  let events: PushedEvents;
  try {
    events = agent.stream(input, options);
  } catch (error) {
    reporter.error(error);
    throw error;
  }
  const stream = observedEvents(events, reporter) as AsyncGenerator<AgentEvent> & PushedEvents;
  const push = events[PUSH_EVENTS];
  if (push !== undefined) {
    stream[PUSH_EVENTS] = (observer) =>
      push.call(events, {
        next(event) {
          reporter.event(event);
          return observer.next(event);
        },
        error(error) {
          reporter.error(error);
          observer.error(error);
        },
        complete: () => observer.complete(),
      });
  }
  return stream;
}

async function* observedEvents(
  events: AsyncIterable<AgentEvent>,
  reporter: FailureReporter,
): AsyncGenerator<AgentEvent> {
  try {
    for await (const event of events) {
      reporter.event(event);
      yield event;
    }
  } catch (error) {
    reporter.error(error);
    throw error;
  }
}
