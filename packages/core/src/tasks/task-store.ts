import type { Message, Part } from '../message.ts';
import type { Task, TaskError, TaskInputRequest } from './task.ts';
import type { TaskEvent, TaskLogEntry, TaskProgressEvent } from './task-event.ts';
import type { TaskStatus } from './task-lifecycle.ts';

/** What a store needs to create a task; it sets the status, the timestamps and the log itself. */
export interface NewTask {
  id: string;
  /** The conversation it joins; without one, it starts a new one named by its own `id`. */
  contextId?: string;
  agentName: string;
  input: string;
  metadata: Record<string, unknown>;
  /** Its history to begin with (the caller's message, say); empty without. */
  messages?: readonly Message[];
  /**
   * The status it is created in (default `submitted`): `working` starts it in the same step, for
   * a surface that runs a task as it creates it (no queue), its log's `working` status update
   * right after the `submitted` one and the messages.
   */
  status?: 'submitted' | 'working';
  /**
   * How long it is kept once finished, in milliseconds (default: the store's retention). A
   * surface gives its own kind of task a retention of its own (REST and compat stream runs, kept
   * for as long as a dropped stream may be rejoined); the store's count and byte bounds apply to
   * every task alike.
   */
  retainMs?: number;
}

/** A chunk of an artifact for {@link TaskPatch.artifacts}. */
export interface TaskArtifactChunk {
  artifactId: string;
  name?: string;
  parts: readonly Part[];
  /** Add the parts to the artifact of that id (default false: replace it, or start it). */
  append?: boolean;
  /** No more chunks of this artifact follow (default false). */
  lastChunk?: boolean;
}

/**
 * A change to a task, applied in one step with the events that describe it, in this order:
 * `progress` (as `append` would), one `message` event per message, one `artifact-update` per
 * chunk, then one `status-update` when `status`, `statusMessage`, `output`, `error` or
 * `inputRequest` is set.
 */
export interface TaskPatch {
  /** A move (checked against the lifecycle), or the status it is in. */
  status?: TaskStatus;
  /**
   * The message that goes with the status. A move without one clears it; it is not added to
   * the history (put it in `messages` too for that, as A2A servers do).
   */
  statusMessage?: Message;
  /** Replaces the text view (the final answer, say). */
  output?: string;
  error?: TaskError;
  /** What the task pauses for, with a move to `input-required` or `auth-required`. */
  inputRequest?: TaskInputRequest;
  /** Messages added to the history. */
  messages?: readonly Message[];
  /** Artifact chunks, applied in order. */
  artifacts?: readonly TaskArtifactChunk[];
  /** Progress events appended before the rest (a runner's last ones, in the step that ends it). */
  progress?: readonly TaskProgressEvent[];
}

/** The optimistic check of an update: it applies only while the task is in one of these. */
export interface TaskUpdateOptions {
  expectedStatus: TaskStatus | readonly TaskStatus[];
}

/** Paging and filters of a task listing; newest tasks come first. */
export interface TaskListOptions {
  /** Page size, 1 to 100 (default 50). */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  status?: TaskStatus;
  agentName?: string;
  /** Only the tasks of this conversation. */
  contextId?: string;
}

/** One page of tasks. */
export interface TaskPage {
  tasks: Task[];
  /** Present when more tasks follow. */
  nextCursor?: string;
}

/** Which events of a task's log to read. */
export interface TaskEventsOptions {
  /** Read the events whose `seq` is greater (default 0: from the first). */
  after?: number;
  /** At most this many, the oldest first (default: all there are). */
  limit?: number;
}

/**
 * Called after every step that changed a task, whichever process made it, with the task after the
 * step and the events the step appended, oldest first: the last has sequence number `task.seq`,
 * the first `task.seq - events.length + 1`. A store that cannot carry the events (a notification
 * from another process) may pass fewer, even none: a reader that needs them reads them with
 * `events` (`followTaskEvents` does). The array is the listener's to read during the call only
 * (the memory store may hand it its own); a listener that keeps the events copies them.
 */
export type TaskListener = (task: Task, events: readonly TaskEvent[]) => void;

/**
 * Asynchronous, pluggable task storage with an ordered event log per task. Every step that changes
 * a task (`create`, `update`, `append`) appends the events describing the change to its log, and
 * sets the task's `seq` to the last of them, atomically: a snapshot at `seq` N plus the events
 * after N is the whole task, nothing missing and nothing twice. A durable store (PostgreSQL, say)
 * makes each step one transaction (a conditional `UPDATE ... WHERE id = $1 AND status = ANY($2)`
 * and the `INSERT` of its events), and `subscribe` a change feed (LISTEN/NOTIFY), which is how a
 * cancel made in one process reaches the runner in another. The core README says it all in full.
 */
export interface TaskStore {
  /** Stores a new task in `submitted`; its log starts with that status (seq 1). */
  create(task: NewTask): Promise<Task>;
  /** The task, or undefined when there is none (or it expired). */
  get(id: string): Promise<Task | undefined>;
  /**
   * Applies `patch` if the task is still in an expected status, appending the events describing
   * it; throws TaskNotFoundError, TaskConflictError (the check failed) or InvalidTransitionError
   * (the lifecycle forbids it, or the task is terminal and the patch would change it). A patch
   * that sets nothing answers the task as it is, appends nothing and notifies no one.
   */
  update(id: string, patch: TaskPatch, options: TaskUpdateOptions): Promise<Task>;
  /**
   * Appends progress events to an unfinished task's log, changing nothing else but the text view
   * (a `text-delta` grows `output`) and `updatedAt`; TaskNotFoundError, or TaskConflictError once
   * the task is terminal (a late event of a canceled run is not kept).
   */
  append(id: string, events: readonly TaskProgressEvent[]): Promise<Task>;
  /**
   * The task's events after `options.after`, oldest first: TaskNotFoundError for an unknown task,
   * EventsAheadError when `after` is beyond its last event, EventsExpiredError when retention
   * dropped some of the events asked for (never a silent gap).
   */
  events(id: string, options?: TaskEventsOptions): Promise<readonly TaskLogEntry[]>;
  /** Lists tasks, newest first. */
  list(options?: TaskListOptions): Promise<TaskPage>;
  /** Removes finished tasks whose retention has run out; resolves with how many. */
  deleteExpired(now?: Date): Promise<number>;
  /** Calls `listener` after every create, update and append; returns the unsubscribe function. */
  subscribe(listener: TaskListener): () => void;
  /**
   * For a store of several processes that leases the working tasks each one runs (optional): takes
   * over at most `limit` working tasks of `agentName` whose lease ran out (the process running
   * them died), leasing them to this process and clearing their output, so that its runner runs
   * them again; their ids. Each is taken by one process only.
   */
  takeOverLost?(agentName: string, limit: number): Promise<string[]>;
  /**
   * For a store several processes share (optional): reserves for this process at most `limit`
   * submitted tasks of `agentName` created by `createdBefore`, newest first, that no other
   * process's claim holds; their ids, which its runner then starts (a conditional step). Without
   * it a claiming runner lists the submitted tasks, and runners that poll at once race to start
   * the same ones (one wins each).
   */
  claimSubmitted?(agentName: string, limit: number, createdBefore: Date): Promise<string[]>;
}
