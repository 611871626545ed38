import { InvalidInputError } from '../errors/invalid-input-error.ts';
import { TaskConflictError } from '../errors/task-conflict-error.ts';
import { TaskNotFoundError } from '../errors/task-not-found-error.ts';
import { assertTransition, hasOwnKeys, isTerminalStatus, type Task } from './task.ts';
import type {
  NewTask,
  TaskListener,
  TaskListOptions,
  TaskPage,
  TaskPatch,
  TaskStore,
  TaskUpdateOptions,
} from './task-store.ts';

/** Retention of the in-memory store. */
export interface MemoryTaskStoreOptions {
  /** How many tasks it keeps; past it the oldest finished tasks go first (default 10,000). */
  maxTasks?: number;
  /** How long a finished task is kept, in milliseconds (default one hour). */
  ttlMs?: number;
  /** The clock, for tests. */
  now?: () => number;
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 100;

/**
 * A stored task. Finished entries also form the eviction queue themselves (oldest first, linked
 * by `next`): a task kept for an hour under load is one of thousands that survive V8's young
 * generation, and every object kept per task costs every scavenge a copy (item 34 of
 * BENCHMARKS.md).
 */
interface Entry {
  task: Task;
  readonly sequence: number;
  /**
   * When the task finished (a task finishes once), in milliseconds since the store was made (a
   * small integer, kept in the entry itself where a clock reading would be a boxed number), or
   * -1 while it runs.
   */
  finishedAt: number;
  /** The next task to finish after this one. */
  next: Entry | undefined;
}

/** The metadata of every task created without any: one frozen object, not one per task. */
const NO_METADATA: Readonly<Record<string, unknown>> = Object.freeze({});

function encodeCursor(sequence: number): string {
  return btoa(`seq:${sequence}`).replace(/=+$/, '');
}

function decodeCursor(cursor: string): number {
  let decoded = '';
  try {
    decoded = atob(cursor);
  } catch {
    // Not base64: reported as an invalid cursor below.
  }
  const match = /^seq:(\d+)$/.exec(decoded);
  if (match?.[1] === undefined) throw new InvalidInputError('Invalid cursor', { field: 'cursor' });
  return Number(match[1]);
}

function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new InvalidInputError(`limit must be an integer from 1 to ${MAX_LIMIT}`, {
      field: 'limit',
    });
  }
  return limit;
}

/**
 * Creates the in-memory task store: bounded retention (a TTL for finished tasks and a maximum
 * count; the oldest finished tasks are evicted first, running ones never).
 *
 * @example
 * const store = createMemoryTaskStore({ maxTasks: 1000, ttlMs: 60_000 });
 */
export function createMemoryTaskStore(options: MemoryTaskStoreOptions = {}): TaskStore {
  const maxTasks = options.maxTasks ?? 10_000;
  const ttlMs = options.ttlMs ?? 3_600_000;
  const now = options.now ?? Date.now;
  const madeAt = now();
  // Tasks change many times a millisecond under load; toISOString is a measurable cost per change.
  let stampedAt = Number.NaN;
  let stamp = '';
  const isoAt = (at: number): string => {
    if (at !== stampedAt) {
      stampedAt = at;
      stamp = new Date(at).toISOString();
    }
    return stamp;
  };
  const entries = new Map<string, Entry>();
  /**
   * Finished tasks in the order they finished, oldest first, linked through their entries (a Map
   * used as a queue keeps its deleted entries as holes that every eviction walks again).
   */
  let oldestFinished: Entry | undefined;
  let newestFinished: Entry | undefined;
  const listeners = new Set<TaskListener>();
  let sequence = 0;

  function notify(task: Task): void {
    for (const listener of listeners) {
      try {
        listener(task);
      } catch {
        // A failing listener must not break the write or the other listeners.
      }
    }
  }

  function evict(at: number): number {
    let removed = 0;
    for (let oldest = oldestFinished; oldest !== undefined; oldest = oldestFinished) {
      if (madeAt + oldest.finishedAt + ttlMs > at && entries.size < maxTasks) break;
      oldestFinished = oldest.next;
      oldest.next = undefined;
      if (oldestFinished === undefined) newestFinished = undefined;
      entries.delete(oldest.task.id);
      removed += 1;
    }
    return removed;
  }

  function enqueueFinished(entry: Entry, at: number): void {
    entry.finishedAt = at - madeAt;
    if (newestFinished === undefined) oldestFinished = entry;
    else newestFinished.next = entry;
    newestFinished = entry;
  }

  return {
    async create(input: NewTask) {
      const at = now();
      evict(at);
      if (entries.has(input.id)) {
        throw new InvalidInputError(`Task '${input.id}' already exists`, { field: 'id' });
      }
      const timestamp = isoAt(at);
      const task: Task = Object.freeze({
        id: input.id,
        agentName: input.agentName,
        status: 'submitted',
        input: input.input,
        metadata: hasOwnKeys(input.metadata) ? Object.freeze({ ...input.metadata }) : NO_METADATA,
        createdAt: timestamp,
        updatedAt: timestamp,
      });
      sequence += 1;
      entries.set(task.id, { task, sequence, finishedAt: -1, next: undefined });
      notify(task);
      return task;
    },

    async get(id) {
      return entries.get(id)?.task;
    },

    async update(id: string, patch: TaskPatch, updateOptions: TaskUpdateOptions) {
      const entry = entries.get(id);
      if (entry === undefined) throw new TaskNotFoundError(id);
      const current = entry.task;
      const expected = updateOptions.expectedStatus;
      if (
        typeof expected === 'string'
          ? current.status !== expected
          : !expected.includes(current.status)
      ) {
        throw new TaskConflictError(id, current.status);
      }
      if (patch.status !== undefined && patch.status !== current.status) {
        assertTransition(current.status, patch.status);
      }
      const at = now();
      const task: Task = Object.freeze({
        ...current,
        ...patch,
        updatedAt: isoAt(at),
      });
      entry.task = task;
      if (isTerminalStatus(task.status) && !isTerminalStatus(current.status)) {
        enqueueFinished(entry, at);
      }
      notify(task);
      return task;
    },

    async list(listOptions: TaskListOptions = {}): Promise<TaskPage> {
      const limit = pageLimit(listOptions.limit);
      const before =
        listOptions.cursor === undefined
          ? Number.POSITIVE_INFINITY
          : decodeCursor(listOptions.cursor);
      const all = [...entries.values()];
      const tasks: Task[] = [];
      let last: Entry | undefined;
      for (let index = all.length - 1; index >= 0; index -= 1) {
        const entry = all[index] as Entry;
        if (entry.sequence >= before) continue;
        if (listOptions.status !== undefined && entry.task.status !== listOptions.status) continue;
        if (listOptions.agentName !== undefined && entry.task.agentName !== listOptions.agentName) {
          continue;
        }
        if (tasks.length === limit) {
          return { tasks, nextCursor: encodeCursor((last as Entry).sequence) };
        }
        tasks.push(entry.task);
        last = entry;
      }
      return { tasks };
    },

    async deleteExpired(at = new Date(now())) {
      return evict(at.getTime());
    },

    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
