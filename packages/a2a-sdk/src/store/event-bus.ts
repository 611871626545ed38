import type {
  AgentExecutionEvent,
  EventListener,
  ExecutionEventBus,
  ExecutionEventBusManager,
  ExecutionEventName,
  FinishedListener,
  ServerCallContext,
} from '@a2a-js/sdk/server';
import { resolveUserScope } from '@a2a-js/sdk/server';

interface Subscription {
  readonly name: ExecutionEventName;
  readonly listener: EventListener | FinishedListener;
  readonly once: boolean;
}

/**
 * An {@link ExecutionEventBus} over a plain listener list: the same synchronous, in-order
 * dispatch as the SDK's EventTarget-based bus, without allocating an event object per publish.
 */
export class ListenerExecutionEventBus implements ExecutionEventBus {
  #subscriptions: Subscription[] = [];

  publish(event: AgentExecutionEvent): void {
    this.#dispatch('event', event);
  }

  finished(): void {
    this.#dispatch('finished', undefined);
  }

  on(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    this.#subscriptions = [...this.#subscriptions, { name: eventName, listener, once: false }];
    return this;
  }

  once(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    this.#subscriptions = [...this.#subscriptions, { name: eventName, listener, once: true }];
    return this;
  }

  off(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    const index = this.#subscriptions.findLastIndex(
      (subscription) => subscription.name === eventName && subscription.listener === listener,
    );
    if (index !== -1) this.#subscriptions = this.#subscriptions.toSpliced(index, 1);
    return this;
  }

  removeAllListeners(eventName?: ExecutionEventName): this {
    this.#subscriptions =
      eventName === undefined
        ? []
        : this.#subscriptions.filter((subscription) => subscription.name !== eventName);
    return this;
  }

  #dispatch(name: ExecutionEventName, event: AgentExecutionEvent | undefined): void {
    // The list is replaced (never mutated) on change, so this snapshot is stable; a listener
    // removed by an earlier one during this dispatch is skipped, as with EventTarget.
    const snapshot = this.#subscriptions;
    for (const subscription of snapshot) {
      if (subscription.name !== name) continue;
      if (snapshot !== this.#subscriptions && !this.#subscriptions.includes(subscription)) continue;
      if (subscription.once) {
        this.#subscriptions = this.#subscriptions.filter((other) => other !== subscription);
      }
      if (name === 'event')
        (subscription.listener as EventListener).call(this, event as AgentExecutionEvent);
      else (subscription.listener as FinishedListener).call(this);
    }
  }
}

const UNSCOPED = '\u0000unscoped';

function scopeKey(taskId: string, context: ServerCallContext | undefined): string {
  if (context === undefined) return `${UNSCOPED}\u0000${taskId}`;
  return `${context.tenant ?? ''}\u0000${resolveUserScope(context)}\u0000${taskId}`;
}

/**
 * An {@link ExecutionEventBusManager} with one {@link ListenerExecutionEventBus} per task, scoped
 * by tenant and user like the SDK's default manager.
 */
export class ListenerExecutionEventBusManager implements ExecutionEventBusManager {
  readonly #buses = new Map<string, ListenerExecutionEventBus>();

  createOrGetByTaskId(taskId: string, context?: ServerCallContext): ExecutionEventBus {
    const key = scopeKey(taskId, context);
    let bus = this.#buses.get(key);
    if (bus === undefined) {
      bus = new ListenerExecutionEventBus();
      this.#buses.set(key, bus);
    }
    return bus;
  }

  getByTaskId(taskId: string, context?: ServerCallContext): ExecutionEventBus | undefined {
    return this.#buses.get(scopeKey(taskId, context));
  }

  cleanupByTaskId(taskId: string, context?: ServerCallContext): void {
    const key = scopeKey(taskId, context);
    this.#buses.get(key)?.removeAllListeners();
    this.#buses.delete(key);
  }
}
