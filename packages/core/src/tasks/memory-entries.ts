import { TaskStoreFullError } from '../errors/task-store-full-error.ts';
import type { Message } from '../message.ts';
import { dropEvents, type TaskLog, trimLog } from './memory-task-log.ts';
import type { Artifact, Task, TaskError, TaskInputRequest } from './task.ts';
import type { TaskStatus } from './task-lifecycle.ts';

/**
 * A stored task, kept as one object with its log: the tasks the store hands out are frozen
 * snapshots of it, which die young, where a kept `Task` would be a second object per stored task.
 * Finished entries also form the eviction queue themselves (oldest first, linked by `next`). A
 * task kept for an hour under load is one of thousands that survive V8's young generation, and
 * every object kept per task costs every scavenge a copy (docs/decisions/0005).
 */
export interface Entry extends TaskLog {
  readonly id: string;
  readonly contextId: string;
  readonly agentName: string;
  status: TaskStatus;
  statusMessage: Message | undefined;
  readonly input: string;
  output: string | undefined;
  error: TaskError | undefined;
  inputRequest: TaskInputRequest | undefined;
  messages: readonly Message[];
  artifacts: readonly Artifact[];
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
  updatedAt: string;
  /** Its place in creation order, across the store (the listing's cursor). */
  readonly sequence: number;
  /** The bytes it holds in all (its fields, see `jsonWeight`, and its log), as counted in the store's total. */
  bytes: number;
  /**
   * When the task finished (a task finishes once), in milliseconds since the store was made (a
   * small integer, kept in the entry itself where a clock reading would be a boxed number), or
   * -1 while it runs.
   */
  finishedAt: number;
  /** How long it is kept once finished, in milliseconds (its own, else the store's). */
  readonly retainMs: number;
  /** The next task to finish after this one. */
  next: Entry | undefined;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The task an entry stands for, frozen. The common shapes (no status message, no error; with or
 * without output) are object literals of fixed shapes; the others add their optional fields.
 */
export function snapshot(entry: Entry): Task {
  const { id, contextId, agentName, status, input, messages, artifacts, metadata } = entry;
  const { createdAt, updatedAt, seq, statusMessage, output, error, inputRequest } = entry;
  if (statusMessage === undefined && error === undefined && inputRequest === undefined) {
    return output === undefined
      ? Object.freeze({
          id,
          contextId,
          agentName,
          status,
          input,
          messages,
          artifacts,
          metadata,
          createdAt,
          updatedAt,
          seq,
        })
      : Object.freeze({
          id,
          contextId,
          agentName,
          status,
          input,
          messages,
          artifacts,
          metadata,
          createdAt,
          updatedAt,
          seq,
          output,
        });
  }
  const task: Mutable<Task> = {
    id,
    contextId,
    agentName,
    status,
    input,
    messages,
    artifacts,
    metadata,
    createdAt,
    updatedAt,
    seq,
  };
  if (output !== undefined) task.output = output;
  if (error !== undefined) task.error = error;
  if (statusMessage !== undefined) task.statusMessage = statusMessage;
  if (inputRequest !== undefined) task.inputRequest = inputRequest;
  return Object.freeze(task);
}

/** The limits a store's entries are kept within. */
export interface EntryLimits {
  readonly maxTasks: number;
  readonly maxBytes: number;
  /** The retention of a task that has none of its own. */
  readonly ttlMs: number;
  /** When the store was made, by its clock: entries count their finish from it. */
  readonly madeAt: number;
}

/**
 * The in-memory store's entries and their retention: the count and bytes they hold, and the
 * finished ones in the order they finished, oldest first, linked through their entries (a Map
 * used as a queue keeps its deleted entries as holes that every eviction walks again). Over the
 * byte budget, the logs of finished tasks go first, oldest first (the tasks stay readable, their
 * events are expired), then finished tasks themselves.
 */
export class MemoryEntries {
  /** Every entry, by task id, in creation order. */
  readonly byId = new Map<string, Entry>();
  readonly #limits: EntryLimits;
  #oldestFinished: Entry | undefined;
  #newestFinished: Entry | undefined;
  /** The oldest finished entry that still has its log (those before it had theirs dropped). */
  #oldestWithLog: Entry | undefined;
  /** The bytes all entries hold, by their own count, and those of the finished ones. */
  #totalBytes = 0;
  #finishedBytes = 0;
  #finishedCount = 0;

  constructor(limits: EntryLimits) {
    this.#limits = limits;
  }

  /**
   * Makes room for a new task of `bytes`: refuses it with TaskStoreFullError when it would not
   * fit beside the unfinished tasks alone (unfinished tasks are never dropped, and then nothing
   * finished is dropped for it either), else drops what retention says at `at`.
   */
  admit(bytes: number, at: number): void {
    const { maxTasks, maxBytes } = this.#limits;
    const unfinished = this.byId.size - this.#finishedCount;
    if (unfinished + 1 > maxTasks || this.#totalBytes - this.#finishedBytes + bytes > maxBytes) {
      throw new TaskStoreFullError();
    }
    this.evict(at, 1, bytes);
  }

  /** Keeps a new entry. */
  add(entry: Entry): void {
    this.byId.set(entry.id, entry);
    this.#totalBytes += entry.bytes;
  }

  /** Whether a finished entry is past its TTL at `at` (a running one never is). */
  isExpired(entry: Entry, at: number): boolean {
    return entry.finishedAt >= 0 && this.#limits.madeAt + entry.finishedAt + entry.retainMs <= at;
  }

  /** Counts `bytes` more (or fewer, when negative) for an entry that changed. */
  grow(entry: Entry, bytes: number): void {
    entry.bytes += bytes;
    this.#totalBytes += bytes;
    // A finished task written again (its bytes are in the finished count already).
    if (entry.finishedAt >= 0) this.#finishedBytes += bytes;
  }

  /**
   * An entry that just finished joins the eviction queue, newest; its log, complete now, is cut
   * to the events it keeps (an array grown event by event has room for a dozen more, kept for as
   * long as the task).
   */
  finish(entry: Entry, at: number): void {
    trimLog(entry);
    entry.finishedAt = at - this.#limits.madeAt;
    this.#finishedBytes += entry.bytes;
    this.#finishedCount += 1;
    if (this.#newestFinished === undefined) this.#oldestFinished = entry;
    else this.#newestFinished.next = entry;
    this.#newestFinished = entry;
    this.#oldestWithLog ??= entry;
  }

  /** A change that grew the store past its budget makes room by what finished tasks it can drop. */
  trim(at: number): void {
    if (this.#totalBytes > this.#limits.maxBytes) this.evict(at, 0);
  }

  /**
   * Drops the finished tasks past their TTL at `at`, oldest first; then, while the store holds
   * more than `maxTasks - room` tasks, more of them; and while it holds more than
   * `maxBytes - roomBytes` bytes (room for a task about to be created), the logs of finished tasks
   * and then finished tasks themselves. How many tasks it dropped.
   */
  evict(at: number, room: 0 | 1, roomBytes = 0): number {
    const { maxTasks, maxBytes, madeAt } = this.#limits;
    let removed = 0;
    for (let oldest = this.#oldestFinished; oldest !== undefined; oldest = this.#oldestFinished) {
      if (madeAt + oldest.finishedAt + oldest.retainMs > at && this.byId.size + room <= maxTasks) {
        if (this.#totalBytes + roomBytes <= maxBytes) break;
        if (this.#dropOldestLog()) continue;
      }
      this.#remove(oldest);
      removed += 1;
    }
    return removed;
  }

  /**
   * Drops every finished task past its retention at `at`, wherever it is in the queue (a task
   * with a shorter retention than those finished before it expires behind them); how many.
   */
  sweep(at: number): number {
    let removed = this.evict(at, 0);
    let previous = this.#oldestFinished;
    for (let entry = previous?.next; entry !== undefined; entry = previous?.next) {
      if (!this.isExpired(entry, at)) {
        previous = entry;
        continue;
      }
      (previous as Entry).next = entry.next;
      if (this.#newestFinished === entry) this.#newestFinished = previous;
      if (this.#oldestWithLog === entry) this.#oldestWithLog = entry.next ?? undefined;
      entry.next = undefined;
      this.#forget(entry);
      removed += 1;
    }
    return removed;
  }

  /** Drops the log of the oldest finished task that has one; whether there was one. */
  #dropOldestLog(): boolean {
    const entry = this.#oldestWithLog;
    if (entry === undefined) return false;
    this.#oldestWithLog = entry.next;
    this.grow(entry, -dropEvents(entry));
    return true;
  }

  /** Removes the oldest finished entry. */
  #remove(oldest: Entry): void {
    this.#oldestFinished = oldest.next;
    if (this.#oldestWithLog === oldest) this.#oldestWithLog = oldest.next;
    oldest.next = undefined;
    if (this.#oldestFinished === undefined) this.#newestFinished = undefined;
    this.#forget(oldest);
  }

  /** Lets go of a finished entry taken out of the queue. */
  #forget(entry: Entry): void {
    this.byId.delete(entry.id);
    this.#totalBytes -= entry.bytes;
    this.#finishedBytes -= entry.bytes;
    this.#finishedCount -= 1;
  }
}
