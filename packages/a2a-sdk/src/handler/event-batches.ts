import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutionEvent, ExecutionEventBus } from '@a2a-js/sdk/server';
import { TERMINAL_STATES } from './task-progress.ts';

/** Whether a request stops consuming a task's events after this one, as the SDK's queue does. */
function endsConsumption(event: AgentExecutionEvent): boolean {
  if (event.kind === 'message') return true;
  if (event.kind !== 'statusUpdate') return false;
  const state = event.data.status?.state;
  return (
    state !== undefined &&
    (TERMINAL_STATES.has(state) || state === TaskState.TASK_STATE_INPUT_REQUIRED)
  );
}

/**
 * One request's consumption of a task's bus, like the SDK's `ExecutionEventQueue` (same end: a
 * message, a terminal or input-required status, or the bus finishing), but taken in batches:
 * every event published since the last take. A request then saves the task once per batch
 * instead of once per event (a quick task's events all arrive in one batch).
 */
export class EventBatches {
  readonly #bus: ExecutionEventBus;
  #events: AgentExecutionEvent[] = [];
  #wake: (() => void) | undefined;
  #stopped = false;

  constructor(bus: ExecutionEventBus) {
    this.#bus = bus;
    bus.on('event', this.#onEvent);
    bus.on('finished', this.#onFinished);
  }

  readonly #onEvent = (event: AgentExecutionEvent): void => {
    if (this.#stopped) return;
    this.#events.push(event);
    if (endsConsumption(event)) this.stop();
    else this.#signal();
  };

  readonly #onFinished = (): void => {
    this.stop();
  };

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** The events published since the last call (waiting for one), or undefined once it is over. */
  async next(): Promise<AgentExecutionEvent[] | undefined> {
    while (this.#events.length === 0) {
      if (this.#stopped) return undefined;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
    const events = this.#events;
    this.#events = [];
    return events;
  }

  /** Stops listening; the events already taken in are still handed out. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#bus.off('event', this.#onEvent);
    this.#bus.off('finished', this.#onFinished);
    this.#signal();
  }
}
