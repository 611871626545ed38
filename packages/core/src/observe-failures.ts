import type { Agent, AgentRunOptions } from './agent.ts';
import type { AgentEvent } from './agent-event.ts';
import { checkedOutput, errorFromEvent } from './agent-output.ts';
import type { AgentPortError } from './errors/agentport-error.ts';
import { toAgentFailure } from './errors/to-agent-failure.ts';
import { PUSH_EVENTS, type PushedEvents } from './internal/push-events.ts';

/** Called with each failed run of an observed agent (see {@link observeFailures}). */
export type AgentFailureListener = (error: AgentPortError, agentName: string) => void;

/** The code of a run that was canceled, which is not a failure. */
const CANCELED = 'canceled';

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

function observed(
  agent: Agent,
  onFailure: AgentFailureListener,
  wrappers: WeakMap<Agent, Agent>,
): Agent {
  const known = wrappers.get(agent);
  if (known !== undefined) return known;
  const { name } = agent;
  const report = (error: unknown): void => {
    const failure = toAgentFailure(error, name);
    if (failure.code === CANCELED) return;
    try {
      onFailure(failure, name);
    } catch {
      // Reporting must never change what the run does.
    }
  };
  // A final output that is not a string fails the run wherever it is read (checkedOutput).
  const reportOutput = (output: unknown): void => {
    if (typeof output === 'string') return;
    try {
      checkedOutput(output, name);
    } catch (error) {
      report(error);
    }
  };
  const reportEvent = (event: AgentEvent): void => {
    if (event.type === 'error') report(errorFromEvent(event, name));
    else if (event.type === 'done') reportOutput(event.output);
  };

  async function* observedEvents(events: AsyncIterable<AgentEvent>): AsyncGenerator<AgentEvent> {
    try {
      for await (const event of events) {
        reportEvent(event);
        yield event;
      }
    } catch (error) {
      report(error);
      throw error;
    }
  }

  // Handoff targets are observed too (filled in below: a handoff may lead back to this agent).
  const handoffs: Agent[] = [];
  const wrapper: Agent = {
    name,
    ...(agent.description === undefined ? {} : { description: agent.description }),
    ...(agent.instructions === undefined ? {} : { instructions: agent.instructions }),
    ...(agent.model === undefined ? {} : { model: agent.model }),
    tools: agent.tools,
    handoffs,
    invoke(input: string, options?: AgentRunOptions): Promise<string> {
      let running: Promise<string>;
      try {
        running = agent.invoke(input, options);
      } catch (error) {
        report(error);
        throw error;
      }
      return running.then(
        (output) => {
          reportOutput(output);
          return output;
        },
        (error: unknown) => {
          report(error);
          throw error;
        },
      );
    },
    stream(input: string, options?: AgentRunOptions): AsyncIterable<AgentEvent> {
      let events: PushedEvents;
      try {
        events = agent.stream(input, options);
      } catch (error) {
        report(error);
        throw error;
      }
      const stream = observedEvents(events) as AsyncGenerator<AgentEvent> & PushedEvents;
      const push = events[PUSH_EVENTS];
      // A stream that can push its events still can: consumers that test for it keep that path.
      if (push !== undefined) {
        stream[PUSH_EVENTS] = (observer) =>
          push.call(events, {
            next(event) {
              reportEvent(event);
              return observer.next(event);
            },
            error(error) {
              report(error);
              observer.error(error);
            },
            complete: () => observer.complete(),
          });
      }
      return stream;
    },
  };
  wrappers.set(agent, wrapper);
  for (const target of agent.handoffs) handoffs.push(observed(target, onFailure, wrappers));
  return wrapper;
}
