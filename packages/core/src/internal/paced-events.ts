import type { AgentEvent } from '../agent-event.ts';
import { PUSH_EVENTS, type PushedEvents } from './push-events.ts';
import { onNextTurn, RunPace } from './run-pace.ts';

/**
 * An agent's event stream that gives the event loop a turn every few milliseconds of events, as a
 * `defineAgent` stream does by itself: for a surface that reads a hand-written agent's stream. A
 * stream with a push side (see {@link PUSH_EVENTS}) is core's own, paced already, and comes back
 * as it is; any other is read through a thin iterator that hands each step on untouched (no
 * promise of its own) but for the one that waits a turn.
 */
export function pacedEvents(events: AsyncIterable<AgentEvent>): AsyncIterable<AgentEvent> {
  if ((events as PushedEvents)[PUSH_EVENTS] !== undefined) return events;
  return new PacedEvents(events);
}

const DONE: IteratorResult<AgentEvent> = Object.freeze({ done: true, value: undefined });

class PacedEvents implements AsyncIterable<AgentEvent>, AsyncIterator<AgentEvent> {
  readonly #events: AsyncIterable<AgentEvent>;
  #iterator: AsyncIterator<AgentEvent> | undefined;
  readonly #pace = new RunPace();
  /** Closed while a step waited for its turn: that step asks the stream for nothing. */
  #closed = false;

  constructor(events: AsyncIterable<AgentEvent>) {
    this.#events = events;
  }

  [Symbol.asyncIterator](): this {
    this.#iterator = this.#events[Symbol.asyncIterator]();
    return this;
  }

  next(): Promise<IteratorResult<AgentEvent>> {
    const iterator = this.#source();
    if (!this.#pace.spend()) return iterator.next();
    return new Promise<void>((resolve) => onNextTurn(resolve, undefined)).then(() => {
      this.#pace.rest();
      return this.#closed ? DONE : iterator.next();
    });
  }

  return(value?: unknown): Promise<IteratorResult<AgentEvent>> {
    this.#closed = true;
    const iterator = this.#iterator;
    if (iterator?.return === undefined) return Promise.resolve(DONE);
    return iterator.return(value);
  }

  #source(): AsyncIterator<AgentEvent> {
    this.#iterator ??= this.#events[Symbol.asyncIterator]();
    return this.#iterator;
  }
}
