import { InvalidInputError } from '../errors/invalid-input-error.ts';
import { TaskConflictError } from '../errors/task-conflict-error.ts';
import { TaskNotFoundError } from '../errors/task-not-found-error.ts';
import { TaskStoreFullError } from '../errors/task-store-full-error.ts';
import { jsonWeight } from '../json-weight.ts';
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
  TaskListOptions,
  TaskPage,
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

const DEFAULT_LIMIT = 50;
const DEFAULT_MAX_BYTES = 128 * 1024 * 1024;
/** What a stored task holds besides its strings and metadata, roughly (the entry, id, stamps). */
const ENTRY_BYTES = 256;
const MAX_LIMIT = 100;

/**
 * A stored task, kept as one object: the tasks the store hands out are frozen snapshots of it,
 * which die young, where a kept `Task` would be a second object per stored task. Finished
 * entries also form the eviction queue themselves (oldest first, linked by `next`). A task kept
 * for an hour under load is one of thousands that survive V8's young generation, and every
 * object kept per task costs every scavenge a copy (items 34 and 35 of BENCHMARKS.md).
 */
interface Entry {
  readonly id: string;
  readonly agentName: string;
  status: TaskStatus;
  readonly input: string;
  output: string | undefined;
  error: TaskError | undefined;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
  updatedAt: string;
  readonly sequence: number;
  /** The bytes its input and metadata hold (see `jsonWeight`), which never change. */
  readonly fixedBytes: number;
  /** The bytes it holds in all, as counted in the store's total. */
  bytes: number;
  /**
   * When the task finished (a task finishes once), in milliseconds since the store was made (a
   * small integer, kept in the entry itself where a clock reading would be a boxed number), or
   * -1 while it runs.
   */
  finishedAt: number;
  /** The next task to finish after this one. */
  next: Entry | undefined;
}

/** The task an entry stands for, frozen (object literals of fixed shapes, not spreads). */
function snapshot(entry: Entry): Task {
  const { id, agentName, status, input, output, error, metadata, createdAt, updatedAt } = entry;
  if (error !== undefined) {
    return output === undefined
      ? Object.freeze({ id, agentName, status, input, metadata, createdAt, updatedAt, error })
      : Object.freeze({
          id,
          agentName,
          status,
          input,
          metadata,
          createdAt,
          updatedAt,
          output,
          error,
        });
  }
  return output === undefined
    ? Object.freeze({ id, agentName, status, input, metadata, createdAt, updatedAt })
    : Object.freeze({ id, agentName, status, input, metadata, createdAt, updatedAt, output });
}

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

/** The bytes an entry holds: its fixed part, and its output and error as they are now. */
function bytesOf(entry: Entry): number {
  const { output, error } = entry;
  let bytes = entry.fixedBytes;
  if (output !== undefined) bytes += 2 * output.length;
  if (error !== undefined) bytes += 2 * (error.code.length + error.message.length);
  return bytes;
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
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
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
  /** The bytes all entries hold, by their own count, and those of the finished ones. */
  let totalBytes = 0;
  let finishedBytes = 0;
  let finishedCount = 0;

  function notify(task: Task): void {
    for (const listener of listeners) {
      try {
        listener(task);
      } catch {
        // A failing listener must not break the write or the other listeners.
      }
    }
  }

  /**
   * Drops the finished tasks past their TTL at `at`, oldest first, and then more of them while the
   * store holds more than `maxTasks - room` tasks or more than `maxBytes - roomBytes` bytes (room
   * for a task about to be created).
   */
  function evict(at: number, room: 0 | 1, roomBytes = 0): number {
    let removed = 0;
    for (let oldest = oldestFinished; oldest !== undefined; oldest = oldestFinished) {
      if (
        madeAt + oldest.finishedAt + ttlMs > at &&
        entries.size + room <= maxTasks &&
        totalBytes + roomBytes <= maxBytes
      ) {
        break;
      }
      oldestFinished = oldest.next;
      oldest.next = undefined;
      if (oldestFinished === undefined) newestFinished = undefined;
      entries.delete(oldest.id);
      totalBytes -= oldest.bytes;
      finishedBytes -= oldest.bytes;
      finishedCount -= 1;
      removed += 1;
    }
    return removed;
  }

  function enqueueFinished(entry: Entry, at: number): void {
    entry.finishedAt = at - madeAt;
    finishedBytes += entry.bytes;
    finishedCount += 1;
    if (newestFinished === undefined) oldestFinished = entry;
    else newestFinished.next = entry;
    newestFinished = entry;
  }

  return {
    async create(input: NewTask) {
      const at = now();
      const metadata = hasOwnKeys(input.metadata) ? input.metadata : NO_METADATA;
      const fixedBytes =
        ENTRY_BYTES +
        2 * (input.id.length + input.input.length) +
        (metadata === NO_METADATA ? 0 : jsonWeight(metadata));
      if (entries.has(input.id)) {
        throw new InvalidInputError(`Task '${input.id}' already exists`, { field: 'id' });
      }
      // Unfinished tasks are never dropped: when they leave no room, the create is refused (and
      // no finished task is dropped for it).
      const unfinished = entries.size - finishedCount;
      if (unfinished + 1 > maxTasks || totalBytes - finishedBytes + fixedBytes > maxBytes) {
        throw new TaskStoreFullError();
      }
      evict(at, 1, fixedBytes);
      const timestamp = isoAt(at);
      sequence += 1;
      const entry: Entry = {
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
      entries.set(entry.id, entry);
      totalBytes += fixedBytes;
      const task = snapshot(entry);
      notify(task);
      return task;
    },

    async get(id) {
      const entry = entries.get(id);
      if (entry === undefined) return undefined;
      // A finished task past its TTL is gone, whether or not a create has evicted it yet.
      if (entry.finishedAt >= 0) {
        const at = now();
        if (madeAt + entry.finishedAt + ttlMs <= at) {
          evict(at, 0);
          return undefined;
        }
      }
      return snapshot(entry);
    },

    async update(id: string, patch: TaskPatch, updateOptions: TaskUpdateOptions) {
      const entry = entries.get(id);
      if (entry === undefined) throw new TaskNotFoundError(id);
      const current = entry.status;
      const expected = updateOptions.expectedStatus;
      if (typeof expected === 'string' ? current !== expected : !expected.includes(current)) {
        throw new TaskConflictError(id, current);
      }
      const { status, output, error } = patch;
      assertPatchValues(output, error);
      if (status !== undefined && status !== current) assertTransition(current, status);
      const at = now();
      if (status !== undefined) entry.status = status;
      if (output !== undefined) entry.output = output;
      if (error !== undefined) entry.error = error;
      entry.updatedAt = isoAt(at);
      if (output !== undefined || error !== undefined) {
        const bytes = bytesOf(entry);
        totalBytes += bytes - entry.bytes;
        // A finished task written again (its bytes are in the finished count already).
        if (entry.finishedAt >= 0) finishedBytes += bytes - entry.bytes;
        entry.bytes = bytes;
      }
      if (isTerminalStatus(entry.status) && !isTerminalStatus(current)) enqueueFinished(entry, at);
      // Output that grew past the budget makes room by the finished tasks it can drop.
      if (totalBytes > maxBytes) evict(at, 0);
      const task = snapshot(entry);
      notify(task);
      return task;
    },

    async list(listOptions: TaskListOptions = {}): Promise<TaskPage> {
      const limit = pageLimit(listOptions.limit);
      evict(now(), 0);
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
        if (listOptions.status !== undefined && entry.status !== listOptions.status) continue;
        if (listOptions.agentName !== undefined && entry.agentName !== listOptions.agentName) {
          continue;
        }
        if (tasks.length === limit) {
          return { tasks, nextCursor: encodeCursor((last as Entry).sequence) };
        }
        tasks.push(snapshot(entry));
        last = entry;
      }
      return { tasks };
    },

    async deleteExpired(at = new Date(now())) {
      return evict(at.getTime(), 0);
    },

    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
