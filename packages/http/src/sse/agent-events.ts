import { type AgentEvent, AgentFailureError, type AgentPortError } from '@agentport/core';
import { checkedOutput, toAgentFailure } from '@agentport/core/internal';
import type { SSEWriter } from './sse-writer.ts';
import { sseErrorMessage } from './sse-writer.ts';

/** The error an agent's run reports: its own AgentPortError, else a safe `agent_failure`. */
export function agentFailure(error: unknown, agentName: string): AgentPortError {
  return toAgentFailure(error, agentName);
}

/**
 * The push side of `defineAgent` streams in @agentport/core: such a stream calls `next(event)`,
 * `error(error)` and `complete()` on the object given to its method under this registered symbol,
 * instead of being iterated.
 */
const PUSH_EVENTS = Symbol.for('agentport.agent-events.push');

interface PushedEvents {
  [PUSH_EVENTS]?: (observer: AgentEventPump) => void;
}

/**
 * Writes an agent run's events as SSE events. A stream from `defineAgent` pushes its events to
 * it; any other one is pulled with promise callbacks. Either way there is no async function:
 * while the agent is idle, a stream keeps this object and the pending step, not a suspended frame
 * per layer.
 */
class AgentEventPump {
  readonly #writer: SSEWriter;
  readonly #agentName: string;
  /** Called once at the end; when absent, the end closes the writer. */
  readonly #onEnd: (() => void) | undefined;
  #iterator: AsyncIterator<AgentEvent> | undefined;
  #id = 0;
  // Pull mode only, bound once per stream: smaller than two closures and their context.
  #onStep: ((step: IteratorResult<AgentEvent>) => void) | undefined;
  #onError: ((error: unknown) => void) | undefined;

  constructor(
    events: AsyncIterable<AgentEvent>,
    writer: SSEWriter,
    agentName: string,
    onEnd: (() => void) | undefined,
  ) {
    this.#writer = writer;
    this.#agentName = agentName;
    this.#onEnd = onEnd;
    try {
      const push = (events as PushedEvents)[PUSH_EVENTS];
      if (typeof push === 'function') {
        push.call(events, this);
        return;
      }
      this.#iterator = events[Symbol.asyncIterator]();
    } catch (error) {
      this.error(error);
      return;
    }
    this.#onStep = this.#step.bind(this);
    this.#onError = this.error.bind(this);
    this.#pull();
  }

  /**
   * Writes one event; false once the stream should stop: the writer ended, the event was the last
   * one, or it could not be written (an `agent_failure` error event is then written instead).
   */
  next(event: AgentEvent): boolean {
    try {
      const { type, ...data } = event;
      if (type === 'done') checkedOutput(event.output, this.#agentName);
      const id = this.#id + 1;
      const written = this.#writer.write({ event: type, data: JSON.stringify(data), id });
      // Only an event actually written takes its id: one that cannot be serialised (a BigInt, a
      // cycle) or formatted leaves it to the error event written instead.
      this.#id = id;
      return written && type !== 'done' && type !== 'error';
    } catch (cause) {
      // The event cannot be sent (a BigInt, a cycle, a line break in its type, a final output
      // that is not a string): the agent's mistake, not the caller's.
      this.#write(new AgentFailureError({ agentName: this.#agentName, cause }));
      return false;
    }
  }

  /** The events failed: a safe `error` event, then the end. */
  error(error: unknown): void {
    this.#write(agentFailure(error, this.#agentName));
    this.complete();
  }

  complete(): void {
    if (this.#onEnd === undefined) this.#writer.close();
    else this.#onEnd();
  }

  #pull(): void {
    try {
      (this.#iterator as AsyncIterator<AgentEvent>).next().then(this.#onStep, this.#onError);
    } catch (error) {
      this.error(error);
    }
  }

  #step(step: IteratorResult<AgentEvent>): void {
    if (step.done === true) {
      this.#write(
        new AgentFailureError({
          agentName: this.#agentName,
          message: `Agent '${this.#agentName}' ended without a result`,
        }),
      );
      this.complete();
      return;
    }
    if (this.next(step.value)) this.#pull();
    else this.#close();
  }

  #write(error: AgentPortError): void {
    this.#writer.write({ ...sseErrorMessage(error), id: this.#id + 1 });
  }

  /** Stops the iterator early and ends once it is closed, as leaving a for-await loop does. */
  #close(): void {
    let closing: unknown;
    try {
      closing = this.#iterator?.return?.();
    } catch {
      // A failing return() ends the pump all the same.
    }
    const complete = () => this.complete();
    Promise.resolve(closing).then(complete, complete);
  }
}

/**
 * Writes an agent run's events to an SSE writer and closes it at the end, without waiting: the
 * REST stream route's loop. Events are written as {@link writeAgentEvents} writes them.
 */
export function pumpAgentEvents(
  events: AsyncIterable<AgentEvent>,
  writer: SSEWriter,
  agentName: string,
): void {
  new AgentEventPump(events, writer, agentName, undefined);
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
export function writeAgentEvents(
  events: AsyncIterable<AgentEvent>,
  writer: SSEWriter,
  agentName: string,
): Promise<void> {
  return new Promise((resolve) => {
    new AgentEventPump(events, writer, agentName, resolve);
  });
}
