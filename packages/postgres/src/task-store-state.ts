import { InvalidInputError, type Task, type TaskEvent, type TaskListener } from '@agentport/core';
import type { Pool } from 'pg';
import type { KnownRows } from './task-known.ts';
import type { TaskNotifier } from './task-notifier.ts';
import type { TaskSql } from './task-sql.ts';

/** What the task store's steps, reads and relay share. */
export interface StoreState {
  readonly pool: Pool;
  readonly sql: TaskSql;
  readonly channel: string;
  /** Sends the notifications of its committed steps. */
  readonly notifier: TaskNotifier;
  /** This store's name in its notifications, so that it skips its own. */
  readonly instance: string;
  readonly now: () => number;
  readonly ttlMs: number;
  readonly maxEvents: number;
  readonly listeners: Set<TaskListener>;
  /** How long a lease on a working task lasts without being renewed. */
  readonly leaseMs: number;
  /** The working tasks this store's process runs: it renews their leases. */
  readonly leased: Set<string>;
  /** The rows of the unfinished tasks it wrote last (see KnownRows). */
  readonly known: KnownRows;
}

/**
 * The lease a step leaves on a task: this store's, when the task is working after it (the
 * process that moved it there, or appends to it, runs it), else none; the leased set follows.
 */
export function leaseOf(state: StoreState, task: Task, at: number): [string | null, Date | null] {
  if (task.status !== 'working') {
    state.leased.delete(task.id);
    return [null, null];
  }
  state.leased.add(task.id);
  return [state.instance, new Date(at + state.leaseMs)];
}

/** A count option, checked: an integer of 0 or more, else InvalidInputError naming it. */
export function countOption(value: number | undefined, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InvalidInputError(`${field} must be an integer of 0 or more`, { field });
  }
  return value;
}

/** Calls every listener; one that throws breaks neither the write nor the others. */
export function notify(state: StoreState, task: Task, events: readonly TaskEvent[]): void {
  for (const listener of state.listeners) {
    try {
      listener(task, events);
    } catch {
      // A failing listener must not break the write or the other listeners.
    }
  }
}

/** The notification of a step: the store's name, the task's new seq and its id (ids only). */
export function payloadOf(state: StoreState, id: string, seq: number): string {
  return `${state.instance} ${seq} ${id}`;
}
