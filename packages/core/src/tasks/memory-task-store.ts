import { InvalidInputError } from '../errors/invalid-input-error.ts';
import { InvalidTransitionError } from '../errors/invalid-transition-error.ts';
import { TaskConflictError } from '../errors/task-conflict-error.ts';
import { TaskNotFoundError } from '../errors/task-not-found-error.ts';
import { jsonWeight } from '../json-weight.ts';
import type { Message } from '../message.ts';
import { eventWeight } from './event-weight.ts';
import { type Entry, MemoryEntries, snapshot } from './memory-entries.ts';
import {
  applyPatch,
  assertMessages,
  assertPatch,
  assertProgress,
  type ByteTally,
  changesAnything,
  frozenMessage,
  growOutput,
  PlainStatusEvents,
} from './memory-task-changes.ts';
import { listEntries, pageLimit } from './memory-task-list.ts';
import { pushEvents, readEvents } from './memory-task-log.ts';
import { hasOwnKeys, type Task } from './task.ts';
import type { TaskEvent, TaskProgressEvent } from './task-event.ts';
import { assertTransition, isTerminalStatus, type TaskStatus } from './task-lifecycle.ts';
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
   * How much memory its tasks and their logs may hold, roughly, in bytes (see `jsonWeight`); past
   * it the logs of the oldest finished tasks go first, then the oldest finished tasks, and a
   * create that would not fit beside the unfinished ones is refused with `TaskStoreFullError`
   * (default 128 MiB).
   */
  maxBytes?: number;
  /** How long a finished task is kept, in milliseconds (default one hour). */
  ttlMs?: number;
  /** How many events of one task's log it keeps; past it that task's oldest go (default 10,000). */
  maxEventsPerTask?: number;
  /** The clock, for tests. */
  now?: () => number;
}

const DEFAULT_MAX_BYTES = 128 * 1024 * 1024;
/** What a stored task holds besides its strings and values, roughly (the entry, its log array, stamps). */
const ENTRY_BYTES = 320;

/** The metadata of every task created without any: one frozen object, not one per task. */
const NO_METADATA: Readonly<Record<string, unknown>> = Object.freeze({});
/** The history of every task created without messages, and its artifacts until it has some. */
const NONE: readonly never[] = Object.freeze([]);

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

/** Refuses an update of a task in `current` that expected another status (TaskConflictError). */
function assertExpected(id: string, current: TaskStatus, options: TaskUpdateOptions): void {
  const expected = options.expectedStatus;
  if (typeof expected === 'string' ? current !== expected : !expected.includes(current)) {
    throw new TaskConflictError(id, current);
  }
}

/**
 * The context of a new task: the one it names (a non-empty string), else a new one named by the
 * task's own id (a random UUID already, from the runner: a second one drawn and kept per task
 * cost a create-and-wait ~0.5 µs).
 */
export function contextIdOf(input: NewTask): string {
  const { contextId } = input;
  if (contextId === undefined) return input.id;
  if (typeof contextId !== 'string' || contextId === '') {
    throw new InvalidInputError('contextId must be a non-empty string', { field: 'contextId' });
  }
  return contextId;
}

/** The history a new task starts with: the store's frozen copy of the messages it was given. */
function historyOf(messages: readonly Message[] | undefined): readonly Message[] {
  assertMessages(messages);
  return messages === undefined || messages.length === 0
    ? NONE
    : Object.freeze(messages.map(frozenMessage));
}

/** The entry of a task being created, in `submitted`, its log holding `events` (seq 1 on). */
/** A task's own retention, checked, else the store's. */
export function retentionOf(input: NewTask, ttlMs: number): number {
  const { retainMs } = input;
  if (retainMs === undefined) return ttlMs;
  if (typeof retainMs !== 'number' || !(retainMs >= 0) || !Number.isFinite(retainMs)) {
    throw new InvalidInputError('retainMs must be a number of milliseconds from 0', {
      field: 'retainMs',
    });
  }
  return retainMs;
}

function newEntry(
  input: NewTask,
  at: string,
  sequence: number,
  events: TaskEvent[],
  retainMs: number,
): Entry {
  const metadata = hasOwnKeys(input.metadata) ? Object.freeze({ ...input.metadata }) : NO_METADATA;
  const contextId = contextIdOf(input);
  const messages = historyOf(input.messages);
  let bytes = ENTRY_BYTES + 2 * (input.id.length + input.input.length + contextId.length);
  if (metadata !== NO_METADATA) bytes += jsonWeight(metadata);
  if (messages !== NONE) {
    bytes += jsonWeight(messages);
    // (Not a for-of: the history is a frozen array, whose iteration takes V8's slow path.)
    for (let index = 0; index < messages.length; index += 1) {
      events.push(Object.freeze({ type: 'message', message: messages[index] as Message }));
    }
  }
  for (let index = 0; index < events.length; index += 1) {
    bytes += eventWeight(events[index] as TaskEvent);
  }
  return {
    id: input.id,
    contextId,
    agentName: input.agentName,
    status: 'submitted',
    statusMessage: undefined,
    input: input.input,
    output: undefined,
    error: undefined,
    inputRequest: undefined,
    messages,
    artifacts: NONE,
    metadata,
    createdAt: at,
    updatedAt: at,
    sequence,
    seq: events.length,
    events,
    head: 0,
    bytes,
    finishedAt: -1,
    retainMs,
    next: undefined,
  };
}

/** Calls every listener; one that throws breaks neither the write nor the others. */
function notify(listeners: Set<TaskListener>, task: Task, events: readonly TaskEvent[]): void {
  for (const listener of listeners) {
    try {
      listener(task, events);
    } catch {
      // A failing listener must not break the write or the other listeners.
    }
  }
}

/** What the in-memory store's steps share. */
interface StoreState {
  readonly entries: MemoryEntries;
  readonly now: () => number;
  readonly isoAt: (at: number) => string;
  readonly plain: PlainStatusEvents;
  /** Where a step counts the bytes its entry's fields changed by. */
  readonly tally: ByteTally;
  readonly listeners: Set<TaskListener>;
  readonly maxEvents: number;
  /** The retention of a task that has none of its own. */
  readonly ttlMs: number;
  /** The creation order of the last task created. */
  sequence: number;
}

/** The entry of a task, or undefined when there is none or it is past its TTL. */
function liveEntry(state: StoreState, id: string): Entry | undefined {
  const { entries } = state;
  const entry = entries.byId.get(id);
  if (entry === undefined) return undefined;
  // A finished task past its TTL is gone, whether or not a create has evicted it yet.
  if (entry.finishedAt >= 0) {
    const at = state.now();
    if (entries.isExpired(entry, at)) {
      entries.evict(at, 0);
      return undefined;
    }
  }
  return entry;
}

/** Ends a step: appends its events, counts the bytes it changed, and tells the listeners. */
function commitStep(
  state: StoreState,
  entry: Entry,
  events: readonly TaskEvent[],
  bytes: number,
  at: number,
): Task {
  const { entries } = state;
  entries.grow(entry, bytes + pushEvents(entry, events, state.maxEvents));
  // Finished by this step (a task finishes once: no step follows a terminal one).
  if (entry.finishedAt < 0 && isTerminalStatus(entry.status)) entries.finish(entry, at);
  entries.trim(at);
  const task = snapshot(entry);
  notify(state.listeners, task, events);
  return task;
}

/** Whether a new task is created started (see `NewTask.status`); anything else is refused. */
export function startsWorking(input: NewTask): boolean {
  const { status } = input;
  if (status === undefined || status === 'submitted') return false;
  if (status === 'working') return true;
  throw new InvalidInputError("status must be 'submitted' or 'working'", { field: 'status' });
}

/**
 * `create`: a new task in `submitted` (or `working`, see `NewTask.status`), its log a `submitted`
 * status update, its messages, and the move to `working` if it starts so.
 */
function createTask(state: StoreState, input: NewTask): Task {
  const { entries } = state;
  const at = state.now();
  const timestamp = state.isoAt(at);
  if (entries.byId.has(input.id)) {
    throw new InvalidInputError(`Task '${input.id}' already exists`, { field: 'id' });
  }
  // The log's own array, which the listeners are given too (see `TaskListener`).
  const events: TaskEvent[] = [state.plain.of('submitted', timestamp)];
  const retainMs = retentionOf(input, state.ttlMs);
  const entry = newEntry(input, timestamp, state.sequence + 1, events, retainMs);
  if (startsWorking(input)) {
    const working = state.plain.of('working', timestamp);
    events.push(working);
    entry.status = 'working';
    entry.seq = events.length;
    entry.bytes += eventWeight(working);
  }
  entries.admit(entry.bytes, at);
  state.sequence += 1;
  entries.add(entry);
  const task = snapshot(entry);
  notify(state.listeners, task, events);
  return task;
}

/** `update`: checks a patch (see `TaskStore.update`) and applies it with its events. */
function updateTask(
  state: StoreState,
  id: string,
  patch: TaskPatch,
  options: TaskUpdateOptions,
): Task {
  const entry = state.entries.byId.get(id);
  if (entry === undefined) throw new TaskNotFoundError(id);
  const current = entry.status;
  assertExpected(id, current, options);
  assertPatch(patch);
  if (!changesAnything(patch)) return snapshot(entry);
  // A terminal task never changes again, in its status or otherwise.
  if (isTerminalStatus(current)) throw new InvalidTransitionError(current, patch.status ?? current);
  if (patch.status !== undefined && patch.status !== current) {
    assertTransition(current, patch.status);
  }
  const at = state.now();
  const timestamp = state.isoAt(at);
  state.tally.bytes = 0;
  const events = applyPatch(entry, patch, timestamp, state.plain, state.tally);
  entry.updatedAt = timestamp;
  return commitStep(state, entry, events, state.tally.bytes, at);
}

/** `append`: progress events to an unfinished task's log, its text deltas growing its output. */
function appendToTask(state: StoreState, id: string, events: readonly TaskProgressEvent[]): Task {
  const entry = state.entries.byId.get(id);
  if (entry === undefined) throw new TaskNotFoundError(id);
  if (isTerminalStatus(entry.status)) throw new TaskConflictError(id, entry.status);
  assertProgress(events);
  if (events.length === 0) return snapshot(entry);
  const at = state.now();
  const bytes = growOutput(entry, events);
  entry.updatedAt = state.isoAt(at);
  return commitStep(state, entry, events, bytes, at);
}

/**
 * Creates the in-memory task store: bounded retention (a TTL for finished tasks, a maximum count,
 * a byte budget counting the logs, a cap on each log; the oldest finished tasks' logs and then
 * the tasks themselves are evicted first, running tasks never).
 *
 * @example
 * const store = createMemoryTaskStore({ maxTasks: 1000, ttlMs: 60_000 });
 */
export function createMemoryTaskStore(options: MemoryTaskStoreOptions = {}): TaskStore {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 3_600_000;
  const entries = new MemoryEntries({
    maxTasks: options.maxTasks ?? 10_000,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    ttlMs,
    madeAt: now(),
  });
  const state: StoreState = {
    entries,
    now,
    isoAt: isoStamps(),
    plain: new PlainStatusEvents(),
    tally: { bytes: 0 },
    listeners: new Set(),
    maxEvents: options.maxEventsPerTask ?? 10_000,
    ttlMs,
    sequence: 0,
  };
  return {
    create: async (input) => createTask(state, input),
    get: async (id) => {
      const entry = liveEntry(state, id);
      return entry === undefined ? undefined : snapshot(entry);
    },
    update: async (id, patch, updateOptions) => updateTask(state, id, patch, updateOptions),
    append: async (id, events) => appendToTask(state, id, events),
    events: async (id, eventsOptions = {}) => {
      const entry = liveEntry(state, id);
      if (entry === undefined) throw new TaskNotFoundError(id);
      return readEvents(id, entry, eventsOptions);
    },
    list: async (listOptions = {}) => {
      const limit = pageLimit(listOptions.limit);
      const at = now();
      entries.evict(at, 0);
      return listEntries(entries.byId.values(), listOptions, limit, (entry) =>
        entries.isExpired(entry, at),
      );
    },
    deleteExpired: async (at = new Date(now())) => entries.sweep(at.getTime()),
    subscribe(listener) {
      state.listeners.add(listener);
      return () => state.listeners.delete(listener);
    },
  };
}
