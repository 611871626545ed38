import { InvalidInputError } from '../errors/invalid-input-error.ts';
import { TaskConflictError } from '../errors/task-conflict-error.ts';
import { TaskNotFoundError } from '../errors/task-not-found-error.ts';
import { jsonWeight } from '../json-weight.ts';
import { type Entry, MemoryEntries, snapshot } from './memory-entries.ts';
import { listEntries, pageLimit } from './memory-task-list.ts';
import {
  assertTransition,
  hasOwnKeys,
  isTerminalStatus,
  type Task,
  type TaskError,
  type TaskStatus,
} from './task.ts';
import type {
  NewTask,
  TaskListener,
  TaskPatch,
  TaskStore,
  TaskUpdateOptions,
} from './task-store.ts';

/** Retention of the in-memory store. */
export interface MemoryTaskStoreOptions {
  /**
   * How many tasks it keeps; past it the oldest finished tasks go first, and a create finding
   * only unfinished tasks to drop is refused with `TaskStoreFullError` (default 10,000).
   */
  maxTasks?: number;
  /**
   * How much memory its tasks may hold, roughly, in bytes (input, output, error and metadata; see
   * `jsonWeight`); past it the oldest finished tasks go first, and a create that would not fit
   * beside the unfinished ones is refused with `TaskStoreFullError` (default 128 MiB).
   */
  maxBytes?: number;
  /** How long a finished task is kept, in milliseconds (default one hour). */
  ttlMs?: number;
  /** The clock, for tests. */
  now?: () => number;
}

const DEFAULT_MAX_BYTES = 128 * 1024 * 1024;
/** What a stored task holds besides its strings and metadata, roughly (the entry, id, stamps). */
const ENTRY_BYTES = 256;

/**
 * Refuses an output that is not a string, or an error without string code and message: the
 * store counts their bytes, and one such value (a hand-written agent's numeric output) made the
 * count NaN, after which every finished task of every agent was evicted at once.
 */
function assertPatchValues(output: unknown, error: TaskError | undefined): void {
  if (output !== undefined && typeof output !== 'string') {
    throw new TypeError(`A task's output must be a string, not ${typeof output}`);
  }
  if (
    error !== undefined &&
    (typeof error?.code !== 'string' || typeof error.message !== 'string')
  ) {
    throw new TypeError("A task's error must have a string code and message");
  }
}

/**
 * Refuses an update of a task in `current` that expected another status (TaskConflictError),
 * whose values the store cannot count, or that the lifecycle forbids.
 */
function assertUpdate(
  id: string,
  current: TaskStatus,
  patch: TaskPatch,
  options: TaskUpdateOptions,
): void {
  const expected = options.expectedStatus;
  if (typeof expected === 'string' ? current !== expected : !expected.includes(current)) {
    throw new TaskConflictError(id, current);
  }
  assertPatchValues(patch.output, patch.error);
  if (patch.status !== undefined && patch.status !== current) {
    assertTransition(current, patch.status);
  }
}

/** The metadata of every task created without any: one frozen object, not one per task. */
const NO_METADATA: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * ISO 8601 stamps by a clock reading, remembering the last one: tasks change many times a
 * millisecond under load, and toISOString is a measurable cost per change.
 */
function isoStamps(): (at: number) => string {
  let stampedAt = Number.NaN;
  let stamp = '';
  return (at) => {
    if (at !== stampedAt) {
      stampedAt = at;
      stamp = new Date(at).toISOString();
    }
    return stamp;
  };
}

/** The bytes a new task's id, input and metadata hold, with its entry's own. */
function fixedBytesOf(input: NewTask, metadata: Readonly<Record<string, unknown>>): number {
  const strings = 2 * (input.id.length + input.input.length);
  return ENTRY_BYTES + strings + (metadata === NO_METADATA ? 0 : jsonWeight(metadata));
}

/** The entry of a task being created, in `submitted`. */
function newEntry(
  input: NewTask,
  metadata: Readonly<Record<string, unknown>>,
  fixedBytes: number,
  timestamp: string,
  sequence: number,
): Entry {
  return {
    id: input.id,
    agentName: input.agentName,
    status: 'submitted',
    input: input.input,
    output: undefined,
    error: undefined,
    metadata: metadata === NO_METADATA ? NO_METADATA : Object.freeze({ ...metadata }),
    createdAt: timestamp,
    updatedAt: timestamp,
    sequence,
    fixedBytes,
    bytes: fixedBytes,
    finishedAt: -1,
    next: undefined,
  };
}

/** Calls every listener with a task; one that throws breaks neither the write nor the others. */
function notify(listeners: Set<TaskListener>, task: Task): void {
  for (const listener of listeners) {
    try {
      listener(task);
    } catch {
      // A failing listener must not break the write or the other listeners.
    }
  }
}

/**
 * Creates the in-memory task store: bounded retention (a TTL for finished tasks and a maximum
 * count; the oldest finished tasks are evicted first, running ones never).
 *
 * @example
 * const store = createMemoryTaskStore({ maxTasks: 1000, ttlMs: 60_000 });
 */
export function createMemoryTaskStore(options: MemoryTaskStoreOptions = {}): TaskStore {
  const now = options.now ?? Date.now;
  const entries = new MemoryEntries({
    maxTasks: options.maxTasks ?? 10_000,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    ttlMs: options.ttlMs ?? 3_600_000,
    madeAt: now(),
  });
  const isoAt = isoStamps();
  const listeners = new Set<TaskListener>();
  let sequence = 0;

  return {
    async create(input) {
      const at = now();
      const metadata = hasOwnKeys(input.metadata) ? input.metadata : NO_METADATA;
      const fixedBytes = fixedBytesOf(input, metadata);
      if (entries.byId.has(input.id)) {
        throw new InvalidInputError(`Task '${input.id}' already exists`, { field: 'id' });
      }
      entries.admit(fixedBytes, at);
      sequence += 1;
      const entry = newEntry(input, metadata, fixedBytes, isoAt(at), sequence);
      entries.add(entry);
      const task = snapshot(entry);
      notify(listeners, task);
      return task;
    },

    async get(id) {
      const entry = entries.byId.get(id);
      if (entry === undefined) return undefined;
      // A finished task past its TTL is gone, whether or not a create has evicted it yet.
      if (entry.finishedAt >= 0) {
        const at = now();
        if (entries.isExpired(entry, at)) {
          entries.evict(at, 0);
          return undefined;
        }
      }
      return snapshot(entry);
    },

    async update(id, patch, updateOptions) {
      const entry = entries.byId.get(id);
      if (entry === undefined) throw new TaskNotFoundError(id);
      const current = entry.status;
      assertUpdate(id, current, patch, updateOptions);
      const { status, output, error } = patch;
      const at = now();
      if (status !== undefined) entry.status = status;
      if (output !== undefined) entry.output = output;
      if (error !== undefined) entry.error = error;
      entry.updatedAt = isoAt(at);
      if (output !== undefined || error !== undefined) entries.recount(entry);
      if (isTerminalStatus(entry.status) && !isTerminalStatus(current)) entries.finish(entry, at);
      entries.trim(at);
      const task = snapshot(entry);
      notify(listeners, task);
      return task;
    },

    async list(listOptions = {}) {
      const limit = pageLimit(listOptions.limit);
      entries.evict(now(), 0);
      return listEntries(entries.byId.values(), listOptions, limit);
    },

    async deleteExpired(at = new Date(now())) {
      return entries.evict(at.getTime(), 0);
    },

    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
