import type { Task, TaskError, TaskStatus } from './task.ts';

/** What a store needs to create a task; it sets the status and timestamps itself. */
export interface NewTask {
  id: string;
  agentName: string;
  input: string;
  metadata: Record<string, unknown>;
}

/** A change to a task: a status move (checked against the lifecycle) and/or its output or error. */
export interface TaskPatch {
  status?: TaskStatus;
  output?: string;
  error?: TaskError;
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
}

/** One page of tasks. */
export interface TaskPage {
  tasks: Task[];
  /** Present when more tasks follow. */
  nextCursor?: string;
}

/** Called with a task after every change, whichever process made it. */
export type TaskListener = (task: Task) => void;

/**
 * Asynchronous, pluggable task storage. A durable store (PostgreSQL, say) implements `update` as a
 * conditional write (`... WHERE id = $1 AND status = ANY($2)`) and `subscribe` over a change feed
 * (LISTEN/NOTIFY), which is how a cancel made in one process reaches the runner in another.
 */
export interface TaskStore {
  /** Stores a new task in `submitted`. */
  create(task: NewTask): Promise<Task>;
  /** The task, or undefined when there is none (or it expired). */
  get(id: string): Promise<Task | undefined>;
  /**
   * Applies `patch` if the task is still in an expected status; throws TaskNotFoundError,
   * TaskConflictError (the check failed) or InvalidTransitionError (the lifecycle forbids it).
   */
  update(id: string, patch: TaskPatch, options: TaskUpdateOptions): Promise<Task>;
  /** Lists tasks, newest first. */
  list(options?: TaskListOptions): Promise<TaskPage>;
  /** Removes finished tasks whose retention has run out; resolves with how many. */
  deleteExpired(now?: Date): Promise<number>;
  /** Calls `listener` after every create and update; returns the unsubscribe function. */
  subscribe(listener: TaskListener): () => void;
}
