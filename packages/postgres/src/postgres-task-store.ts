import { randomUUID } from 'node:crypto';
import {
  assertTransition,
  InvalidInputError,
  InvalidTransitionError,
  isTerminalStatus,
  type NewTask,
  type Task,
  TaskConflictError,
  type TaskEvent,
  TaskNotFoundError,
  type TaskPatch,
  type TaskProgressEvent,
  type TaskStore,
  type TaskUpdateOptions,
} from '@agentport/core';
import type { Pool } from 'pg';
import { checkedSchema, taskChannel } from './schema-name.ts';
import { applyPatch, copy, growOutput, type StepChanges, type TaskDraft } from './task-changes.ts';
import {
  assertNewTask,
  assertPatch,
  assertProgress,
  changesAnything,
  contextIdOf,
  retentionOf,
  startsWorking,
} from './task-checks.ts';
import { createTaskFeed, type TaskFeed } from './task-feed.ts';
import { type KnownRow, KnownRows } from './task-known.ts';
import { claimSubmitted, renewLeases, sweepLostTasks, takeOverLost } from './task-leases.ts';
import { createTaskNotifier, writeStep } from './task-notifier.ts';
import { getTask, listTasks, readEvents } from './task-reads.ts';
import { relay } from './task-relay.ts';
import { draftOf, frozenTask, type TaskRow } from './task-rows.ts';
import { taskSql } from './task-sql.ts';
import { countOption, leaseOf, notify, payloadOf, type StoreState } from './task-store-state.ts';
import { unavailableOr } from './unavailable.ts';

/** Where the PostgreSQL task store keeps its tasks, and for how long. */
export interface PostgresTaskStoreOptions {
  /** The pool it runs on (the caller's: `close` leaves it open). */
  pool: Pool;
  /** The schema of its tables (default `agentport`), made by `migrate`. */
  schema?: string;
  /** How long a finished task is kept, in milliseconds (default one hour). */
  ttlMs?: number;
  /** How many events of one task's log it keeps; past it that task's oldest go (default 10,000). */
  maxEventsPerTask?: number;
  /** The clock, for tests (default `Date.now`). */
  now?: () => number;
  /**
   * How long the lease on a working task this process runs lasts, in milliseconds (default
   * 30,000): renewed every third of it while the process lives; past it `sweepLostTasks` ends
   * the task `failed`, `worker_lost`.
   */
  leaseMs?: number;
}

/** Core's `TaskStore` on PostgreSQL, with what it holds open. */
export interface PostgresTaskStore extends TaskStore {
  /**
   * Whether its feed of other processes' changes works: its LISTEN connection (made at the first
   * `subscribe`) is up, waiting for one being made; false while it is down, true while nobody
   * subscribed (no feed is needed).
   */
  feedReady(): Promise<boolean>;
  /**
   * Ends `failed` (code `worker_lost`) the working tasks whose lease ran out: the process running
   * them stopped renewing it (it died). Those of the agents in `except` (retry-safe ones, which
   * a runner takes over with `takeOverLost`) are left. Resolves with their ids.
   */
  sweepLostTasks(options?: { except?: readonly string[] }): Promise<string[]>;
  /** Takes over lost working tasks of an agent for this process (see core's `TaskStore.takeOverLost`). */
  takeOverLost(agentName: string, limit: number): Promise<string[]>;
  /** Claims submitted tasks of an agent for this process (see core's `TaskStore.claimSubmitted`). */
  claimSubmitted(agentName: string, limit: number, createdBefore: Date): Promise<string[]>;
  /** Stops listening for other processes' changes and renewing leases (the pool stays open). */
  close(): Promise<void>;
}

const DEFAULT_TTL_MS = 3_600_000;
const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_MAX_EVENTS = 10_000;

function positiveInteger(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isSafeInteger(value) && value > 0)) {
    throw new InvalidInputError(`${field} must be a positive integer`, { field });
  }
  return value;
}

/** Which of a step's events the log keeps (the cap), and where the log starts after it. */
function keptEvents(state: StoreState, seq: number, earliestAfter: number, events: TaskEvent[]) {
  const start = Math.max(earliestAfter, seq - state.maxEvents);
  const first = seq - events.length;
  const kept = start > first ? events.slice(start - first) : events;
  return { start, base: Math.max(first, start), kept };
}

async function createTask(state: StoreState, input: NewTask): Promise<Task> {
  assertNewTask(input);
  const contextId = contextIdOf(input);
  const retainMs = retentionOf(input, state.ttlMs);
  const working = startsWorking(input);
  const at = new Date(state.now());
  const timestamp = at.toISOString();
  const messages = copy(input.messages ?? []);
  const events: TaskEvent[] = [{ type: 'status-update', status: 'submitted', timestamp }];
  for (const message of messages) events.push({ type: 'message', message });
  if (working) events.push({ type: 'status-update', status: 'working', timestamp });
  const seq = events.length;
  const { start, kept } = keptEvents(state, seq, 0, events);
  const created = at.getTime();
  const task: Task = {
    id: input.id,
    contextId,
    agentName: input.agentName,
    status: working ? 'working' : 'submitted',
    input: input.input,
    messages,
    artifacts: [],
    metadata: copy(input.metadata),
    createdAt: timestamp,
    updatedAt: timestamp,
    seq,
  };
  const result = await writeStep(
    state,
    state.sql.create,
    state.sql.createNotifying,
    payloadOf(state, task.id, seq),
    [
      task.id,
      contextId,
      task.agentName,
      task.status,
      task.input,
      JSON.stringify(messages),
      JSON.stringify(task.metadata),
      at,
      seq,
      start,
      retainMs,
      JSON.stringify(kept),
      ...leaseOf(state, task, created),
    ],
  );
  if (result.rowCount === 0) {
    state.leased.delete(input.id);
    throw new InvalidInputError(`Task '${input.id}' already exists`, { field: 'id' });
  }
  frozenTask(task);
  state.known.set({ task, earliestAfter: start, retainMs });
  notify(state, task, events);
  return task;
}

/** Refuses an update of a task in `current` that expected another status. */
function assertExpected(id: string, current: Task['status'], options: TaskUpdateOptions): void {
  const expected = options.expectedStatus;
  if (typeof expected === 'string' ? current !== expected : !expected.includes(current)) {
    throw new TaskConflictError(id, current);
  }
}

/** The change a step makes to a task it read: its events, or undefined when it changes nothing. */
type StepChange = (
  draft: TaskDraft,
  timestamp: string,
) => { events: TaskEvent[]; changes: StepChanges } | undefined;

/** What a step starts from: the task as a draft, and the row's fields it checks and writes. */
interface StepBase {
  readonly draft: TaskDraft;
  readonly seq: number;
  readonly earliestAfter: number;
  readonly retainMs: number;
  readonly status: Task['status'];
}

async function readBase(state: StoreState, id: string): Promise<StepBase> {
  const { rows } = await unavailableOr(() =>
    state.pool.query<TaskRow>({ ...state.sql.read, values: [id] }),
  );
  const row = rows[0];
  if (row === undefined) throw new TaskNotFoundError(id);
  const draft = draftOf(row) as TaskDraft;
  const { seq, status } = row;
  return { draft, seq, earliestAfter: row.earliest_after, retainMs: Number(row.retain_ms), status };
}

function knownBase(known: KnownRow): StepBase {
  const { task, earliestAfter, retainMs } = known;
  const draft = structuredClone(task) as TaskDraft;
  return { draft, seq: task.seq, earliestAfter, retainMs, status: task.status };
}

/**
 * One step of a task: reads it (or starts from the row this store wrote last), lets `change`
 * check and apply itself, and writes it with its events in one statement that applies only if
 * no other step wrote the task since (its seq); a step that lost that race reads the task again
 * and is checked anew. A step from a remembered row that would not write (a refusal, no change)
 * is made again from the row read, so only the database's state refuses or answers.
 */
async function stepTask(state: StoreState, id: string, change: StepChange): Promise<Task> {
  let known = state.known.get(id);
  for (;;) {
    const remembered = known !== undefined;
    const base = known === undefined ? await readBase(state, id) : knownBase(known);
    known = undefined;
    const { draft } = base;
    const at = state.now();
    let applied: ReturnType<StepChange>;
    try {
      applied = change(draft, new Date(at).toISOString());
    } catch (error) {
      if (remembered) continue;
      throw error;
    }
    if (applied === undefined) {
      if (remembered) continue;
      return frozenTask(draft);
    }
    const { events, changes } = applied;
    const seq = base.seq + events.length;
    draft.seq = seq;
    const { start, base: first, kept } = keptEvents(state, seq, base.earliestAfter, events);
    const finished = isTerminalStatus(draft.status) && !isTerminalStatus(base.status);
    const payload = payloadOf(state, id, seq);
    const result = await writeStep(state, state.sql.step, state.sql.stepNotifying, payload, [
      id,
      base.seq,
      draft.status,
      draft.statusMessage === undefined ? null : JSON.stringify(draft.statusMessage),
      draft.error === undefined ? null : JSON.stringify(draft.error),
      draft.inputRequest === undefined ? null : JSON.stringify(draft.inputRequest),
      changes.outputSet,
      changes.outputSet ? (draft.output ?? null) : null,
      changes.delta ?? null,
      changes.messages ? JSON.stringify(draft.messages) : null,
      changes.artifacts ? JSON.stringify(draft.artifacts) : null,
      new Date(at),
      seq,
      start,
      finished ? new Date(at + base.retainMs) : null,
      first,
      JSON.stringify(kept),
      start > base.earliestAfter,
      ...leaseOf(state, draft, at),
    ]);
    if (result.rowCount === 1) {
      const task = frozenTask(draft);
      state.known.set({ task, earliestAfter: start, retainMs: base.retainMs });
      notify(state, task, events);
      return task;
    }
    state.known.forget(id);
  }
}

function updateTask(
  state: StoreState,
  id: string,
  patch: TaskPatch,
  options: TaskUpdateOptions,
): Promise<Task> {
  return stepTask(state, id, (draft, timestamp) => {
    const current = draft.status;
    assertExpected(id, current, options);
    assertPatch(patch);
    if (!changesAnything(patch)) return undefined;
    // A terminal task never changes again, in its status or otherwise.
    if (isTerminalStatus(current))
      throw new InvalidTransitionError(current, patch.status ?? current);
    if (patch.status !== undefined && patch.status !== current) {
      assertTransition(current, patch.status);
    }
    return applyPatch(draft, patch, timestamp);
  });
}

function appendToTask(
  state: StoreState,
  id: string,
  progress: readonly TaskProgressEvent[],
): Promise<Task> {
  return stepTask(state, id, (draft, timestamp) => {
    if (isTerminalStatus(draft.status)) throw new TaskConflictError(id, draft.status);
    assertProgress(progress);
    if (progress.length === 0) return undefined;
    const delta = growOutput(draft, progress);
    draft.updatedAt = timestamp;
    return {
      events: copy(progress) as TaskEvent[],
      changes: { messages: false, artifacts: false, outputSet: false, delta },
    };
  });
}

/**
 * Creates core's `TaskStore` on PostgreSQL (tables made by `migrate`): each step one statement
 * (the task's row and its events; the notification sent once it committed), listings newest
 * first, finished tasks kept `ttlMs`, and `subscribe` hearing this store's own steps with their
 * events and other processes' (LISTEN/NOTIFY, ids only) as the task fetched then, with its
 * events since.
 *
 * @example
 * const tasks = createPostgresTaskStore({ pool, schema: 'agentport' });
 */
export function createPostgresTaskStore(options: PostgresTaskStoreOptions): PostgresTaskStore {
  const schema = checkedSchema(options.schema);
  const channel = taskChannel(schema);
  const state: StoreState = {
    pool: options.pool,
    sql: taskSql(schema),
    channel,
    notifier: createTaskNotifier(options.pool, channel, `agentport.${schema}.notify`),
    instance: randomUUID(),
    now: options.now ?? Date.now,
    ttlMs: countOption(options.ttlMs, 'ttlMs', DEFAULT_TTL_MS),
    maxEvents: positiveInteger(options.maxEventsPerTask, DEFAULT_MAX_EVENTS, 'maxEventsPerTask'),
    listeners: new Set(),
    leaseMs: positiveInteger(options.leaseMs, DEFAULT_LEASE_MS, 'leaseMs'),
    leased: new Set(),
    known: new KnownRows(),
  };
  // A renewal that fails (the database away) is tried again at the next tick.
  const renewals = setInterval(
    () => renewLeases(state).catch(() => undefined),
    Math.max(1, Math.floor(state.leaseMs / 3)),
  );
  renewals.unref();
  const get = (id: string) => getTask(state, id);
  let feed: TaskFeed | undefined;
  const relayed = relay(state);
  return {
    create: (input) => createTask(state, input),
    get,
    update: (id, patch, updateOptions) => updateTask(state, id, patch, updateOptions),
    append: (id, events) => appendToTask(state, id, events),
    events: (id, eventsOptions = {}) => readEvents(state, id, eventsOptions),
    list: (listOptions = {}) => listTasks(state, listOptions),
    deleteExpired: async (at = new Date(state.now())) => {
      const result = await unavailableOr(() =>
        state.pool.query({ ...state.sql.deleteExpired, values: [at] }),
      );
      return result.rowCount ?? 0;
    },
    subscribe(listener) {
      state.listeners.add(listener);
      feed ??= createTaskFeed({
        pool: state.pool,
        channel: state.channel,
        applicationName: `agentport listen ${schema}`,
        onPayload: relayed.onPayload,
        onReconnect: relayed.onReconnect,
        now: state.now,
      });
      feed.start();
      return () => {
        state.listeners.delete(listener);
      };
    },
    feedReady: () => feed?.listening() ?? Promise.resolve(true),
    sweepLostTasks: (sweepOptions) =>
      sweepLostTasks(state, updateTask, new Set(sweepOptions?.except ?? [])),
    takeOverLost: (agentName, limit) => takeOverLost(state, updateTask, agentName, limit),
    claimSubmitted: (agentName, limit, createdBefore) =>
      claimSubmitted(state, agentName, limit, createdBefore),
    close: async () => {
      clearInterval(renewals);
      await state.notifier.close();
      await feed?.close();
    },
  };
}
