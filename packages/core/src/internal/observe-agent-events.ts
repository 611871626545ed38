import type { AgentEvent } from '../agent-event.ts';
import { pacedEvents } from './paced-events.ts';
import { type AgentEventObserver, PUSH_EVENTS, type PushedEvents } from './push-events.ts';

/**
 * Reads a hand-written agent's stream for an observer, with promise callbacks bound once (no
 * async function, so an idle stream keeps this object and its pending step, not a suspended
 * frame per layer), paced as `pacedEvents` paces it.
 */
class EventPuller {
  readonly #observer: AgentEventObserver;
  readonly #iterator: AsyncIterator<AgentEvent>;
  readonly #onStep = (step: IteratorResult<AgentEvent>): void => this.#step(step);
  readonly #onError = (error: unknown): void => this.#observer.error(error);

  constructor(iterator: AsyncIterator<AgentEvent>, observer: AgentEventObserver) {
    this.#iterator = iterator;
    this.#observer = observer;
  }

  pull(): void {
    try {
      this.#iterator.next().then(this.#onStep, this.#onError);
    } catch (error) {
      this.#observer.error(error);
    }
  }

  #step(step: IteratorResult<AgentEvent>): void {
    if (step.done === true) {
      this.#observer.complete();
      return;
    }
    if (this.#observer.next(step.value)) {
      this.pull();
      return;
    }
    // Stopped early: close the iterator as leaving a for-await loop does, then complete.
    let closing: unknown;
    try {
      closing = this.#iterator.return?.();
    } catch {
      // A failing return() ends the stream all the same.
    }
    const complete = () => this.#observer.complete();
    Promise.resolve(closing).then(complete, complete);
  }
}

/**
 * Hands an agent's events to `observer` as a `defineAgent` stream pushes them (see
 * `PUSH_EVENTS`): pushed by such a stream, else pulled from any other one (paced). `error` is
 * called when the stream cannot start or a step rejects, `complete` once it has ended (also when
 * it ended without a terminal event: the observer tells). None of its methods may throw.
 */
export function observeAgentEvents(
  events: AsyncIterable<AgentEvent>,
  observer: AgentEventObserver,
): void {
  try {
    const push = (events as PushedEvents)[PUSH_EVENTS];
    if (typeof push === 'function') {
      push.call(events, observer);
      return;
    }
    new EventPuller(pacedEvents(events)[Symbol.asyncIterator](), observer).pull();
  } catch (error) {
    observer.error(error);
  }
}
