import { TaskStoreFullError } from '../errors/task-store-full-error.ts';
import type { Task, TaskError, TaskStatus } from './task.ts';

/**
 * A stored task, kept as one object: the tasks the store hands out are frozen snapshots of it,
 * which die young, where a kept `Task` would be a second object per stored task. Finished
 * entries also form the eviction queue themselves (oldest first, linked by `next`). A task kept
 * for an hour under load is one of thousands that survive V8's young generation, and every
 * object kept per task costs every scavenge a copy (docs/decisions/0005).
 */
export interface Entry {
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
export function snapshot(entry: Entry): Task {
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

/** The bytes an entry holds: its fixed part, and its output and error as they are now. */
function bytesOf(entry: Entry): number {
  const { output, error } = entry;
  let bytes = entry.fixedBytes;
  if (output !== undefined) bytes += 2 * output.length;
  if (error !== undefined) bytes += 2 * (error.code.length + error.message.length);
  return bytes;
}

/** The limits a store's entries are kept within. */
export interface EntryLimits {
  readonly maxTasks: number;
  readonly maxBytes: number;
  readonly ttlMs: number;
  /** When the store was made, by its clock: entries count their finish from it. */
  readonly madeAt: number;
}

/**
 * The in-memory store's entries and their retention: the count and bytes they hold, and the
 * finished ones in the order they finished, oldest first, linked through their entries (a Map
 * used as a queue keeps its deleted entries as holes that every eviction walks again).
 */
export class MemoryEntries {
  /** Every entry, by task id, in creation order. */
  readonly byId = new Map<string, Entry>();
  readonly #limits: EntryLimits;
  #oldestFinished: Entry | undefined;
  #newestFinished: Entry | undefined;
  /** The bytes all entries hold, by their own count, and those of the finished ones. */
  #totalBytes = 0;
  #finishedBytes = 0;
  #finishedCount = 0;

  constructor(limits: EntryLimits) {
    this.#limits = limits;
  }

  /**
   * Makes room for a new task of `fixedBytes`: refuses it with TaskStoreFullError when it would
   * not fit beside the unfinished tasks alone (unfinished tasks are never dropped, and then no
   * finished task is dropped for it either), else drops what retention says at `at`.
   */
  admit(fixedBytes: number, at: number): void {
    const { maxTasks, maxBytes } = this.#limits;
    const unfinished = this.byId.size - this.#finishedCount;
    if (
      unfinished + 1 > maxTasks ||
      this.#totalBytes - this.#finishedBytes + fixedBytes > maxBytes
    ) {
      throw new TaskStoreFullError();
    }
    this.evict(at, 1, fixedBytes);
  }

  /** Keeps a new entry. */
  add(entry: Entry): void {
    this.byId.set(entry.id, entry);
    this.#totalBytes += entry.bytes;
  }

  /** Whether a finished entry is past its TTL at `at` (a running one never is). */
  isExpired(entry: Entry, at: number): boolean {
    return (
      entry.finishedAt >= 0 && this.#limits.madeAt + entry.finishedAt + this.#limits.ttlMs <= at
    );
  }

  /** Counts an entry's bytes again, after its output or error changed. */
  recount(entry: Entry): void {
    const bytes = bytesOf(entry);
    this.#totalBytes += bytes - entry.bytes;
    // A finished task written again (its bytes are in the finished count already).
    if (entry.finishedAt >= 0) this.#finishedBytes += bytes - entry.bytes;
    entry.bytes = bytes;
  }

  /** An entry that just finished joins the eviction queue, newest. */
  finish(entry: Entry, at: number): void {
    entry.finishedAt = at - this.#limits.madeAt;
    this.#finishedBytes += entry.bytes;
    this.#finishedCount += 1;
    if (this.#newestFinished === undefined) this.#oldestFinished = entry;
    else this.#newestFinished.next = entry;
    this.#newestFinished = entry;
  }

  /** Output that grew past the budget makes room by the finished tasks it can drop. */
  trim(at: number): void {
    if (this.#totalBytes > this.#limits.maxBytes) this.evict(at, 0);
  }

  /**
   * Drops the finished tasks past their TTL at `at`, oldest first, and then more of them while the
   * store holds more than `maxTasks - room` tasks or more than `maxBytes - roomBytes` bytes (room
   * for a task about to be created); how many it dropped.
   */
  evict(at: number, room: 0 | 1, roomBytes = 0): number {
    const { maxTasks, maxBytes, ttlMs, madeAt } = this.#limits;
    let removed = 0;
    for (let oldest = this.#oldestFinished; oldest !== undefined; oldest = this.#oldestFinished) {
      if (
        madeAt + oldest.finishedAt + ttlMs > at &&
        this.byId.size + room <= maxTasks &&
        this.#totalBytes + roomBytes <= maxBytes
      ) {
        break;
      }
      this.#oldestFinished = oldest.next;
      oldest.next = undefined;
      if (this.#oldestFinished === undefined) this.#newestFinished = undefined;
      this.byId.delete(oldest.id);
      this.#totalBytes -= oldest.bytes;
      this.#finishedBytes -= oldest.bytes;
      this.#finishedCount -= 1;
      removed += 1;
    }
    return removed;
  }
}
