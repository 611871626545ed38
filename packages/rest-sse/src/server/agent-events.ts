import { type AgentEvent, AgentFailureError, AgentPortError } from '@agentport/core';
import type { SSEWriter } from '../sse/sse-writer.ts';
import { sseErrorMessage } from '../sse/sse-writer.ts';

/** The error an agent's run reports: its own AgentPortError, else a safe `agent_failure`. */
export function agentFailure(error: unknown, agentName: string): AgentPortError {
  if (AgentPortError.isInstance(error)) return error;
  return new AgentFailureError({ agentName, cause: error });
}

/**
 * Pulls an agent run's events one by one and writes each as an SSE event. A loop of promise
 * callbacks rather than an async function: while the agent is idle, all a stream keeps is this
 * object, its two bound callbacks and the pending step, not a suspended frame per layer.
 */
class AgentEventPump {
  readonly #iterator: AsyncIterator<AgentEvent>;
  readonly #writer: SSEWriter;
  readonly #agentName: string;
  /** Called once at the end; when absent, the end closes the writer. */
  readonly #onEnd: (() => void) | undefined;
  #id = 0;
  // Bound once per stream: smaller than two closures and their context.
  readonly #onStep = this.#step.bind(this);
  readonly #onError = this.#error.bind(this);

  constructor(
    events: AsyncIterable<AgentEvent>,
    writer: SSEWriter,
    agentName: string,
    onEnd: (() => void) | undefined,
  ) {
    this.#writer = writer;
    this.#agentName = agentName;
    this.#onEnd = onEnd;
    let iterator: AsyncIterator<AgentEvent> | undefined;
    try {
      iterator = events[Symbol.asyncIterator]();
    } catch (error) {
      this.#onError(error);
    }
    this.#iterator = iterator as AsyncIterator<AgentEvent>;
    if (iterator !== undefined) this.#pull();
  }

  #pull(): void {
    try {
      this.#iterator.next().then(this.#onStep, this.#onError);
    } catch (error) {
      this.#onError(error);
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
      this.#end();
      return;
    }
    let more: boolean;
    try {
      const { type, ...data } = step.value;
      this.#id += 1;
      const written = this.#writer.write({ event: type, data: JSON.stringify(data), id: this.#id });
      more = written && type !== 'done' && type !== 'error';
    } catch (error) {
      // As a for-await loop would: close the iterator, then report the failure.
      this.#close(() => {
        this.#write(agentFailure(error, this.#agentName));
        this.#end();
      });
      return;
    }
    if (more) this.#pull();
    else this.#close(() => this.#end());
  }

  #error(error: unknown): void {
    this.#write(agentFailure(error, this.#agentName));
    this.#end();
  }

  #write(error: AgentPortError): void {
    this.#writer.write({ ...sseErrorMessage(error), id: this.#id + 1 });
  }

  /** Stops the agent's iterator early and waits for it, as leaving a for-await loop does. */
  #close(then: () => void): void {
    let closing: unknown;
    try {
      closing = this.#iterator.return?.();
    } catch {
      // A failing return() ends the pump all the same.
    }
    Promise.resolve(closing).then(then, then);
  }

  #end(): void {
    if (this.#onEnd === undefined) this.#writer.close();
    else this.#onEnd();
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
