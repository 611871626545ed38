import type { ArtifactUpdateEvent } from '../agent-event.ts';
import type { AgentProgressEvent } from '../define-agent.ts';
import type { Message, Part } from '../message.ts';
import { progressEventFault } from '../progress-event-fault.ts';
import type { TaskError, TaskInputRequest } from './task.ts';
import { isTerminalStatus, type TaskStatus } from './task-lifecycle.ts';

/**
 * The task's status was set: a move, or a new status message or output in the same status. It
 * carries the status as it is after the change (with its message, if any), and what the change
 * set of the output (when other than the text the deltas made) and of the error.
 */
export interface TaskStatusUpdateEvent {
  readonly type: 'status-update';
  readonly status: TaskStatus;
  /** When, as ISO 8601 (the task's `updatedAt`). */
  readonly timestamp: string;
  /** The status message after the change, if any. */
  readonly message?: Message;
  /** The output this change set, when it is not what the task's text deltas made already. */
  readonly output?: string;
  /** The error this change set (when failed). */
  readonly error?: TaskError;
  /** What the task pauses for, set with this move to `input-required` or `auth-required`. */
  readonly inputRequest?: TaskInputRequest;
}

/** A message was added to the task's history. */
export interface TaskMessageEvent {
  readonly type: 'message';
  readonly message: Message;
}

/**
 * A chunk of an artifact: with `append`, its parts are added to the artifact of that id (or start
 * it); else they replace it (or start it). `lastChunk` says no more chunks of it follow.
 */
export interface TaskArtifactUpdateEvent {
  readonly type: 'artifact-update';
  readonly artifactId: string;
  readonly name?: string;
  readonly parts: readonly Part[];
  readonly append: boolean;
  readonly lastChunk: boolean;
}

/**
 * The agent's progress as it emitted it (`text-delta`, `tool-call`, `tool-result`, `handoff`, or
 * another type a run passed on): appended to the log as it is. (Its `artifact-update` events
 * become the store's, applied to the task's artifacts.) A `text-delta` also grows the
 * task's `output` (the text view), in the same step.
 */
export type TaskProgressEvent = Exclude<AgentProgressEvent, ArtifactUpdateEvent>;

/** One change to a task, as its log records it, discriminated by `type`. */
export type TaskEvent =
  | TaskStatusUpdateEvent
  | TaskMessageEvent
  | TaskArtifactUpdateEvent
  | TaskProgressEvent;

/** One event of a task's log with its sequence number (1, 2, 3, ... per task, without gaps). */
export interface TaskLogEntry {
  readonly seq: number;
  readonly event: TaskEvent;
}

/** Whether an event ends its task's log: a status update to a terminal status (always the last). */
export function endsTask(event: TaskEvent): boolean {
  return (
    event.type === 'status-update' && isTerminalStatus((event as TaskStatusUpdateEvent).status)
  );
}

/** The types of the events a store writes itself, which no progress event may take. */
const STORE_EVENT_TYPES: ReadonlySet<string> = new Set([
  'status-update',
  'message',
  'artifact-update',
]);

/**
 * What is wrong with a value as a progress event for a task's log, or undefined when it is one:
 * what `defineAgent` refuses of a run (see `progressEventFault`), and the types of the events the
 * store writes itself.
 */
export function taskProgressFault(value: unknown): string | undefined {
  const fault = progressEventFault(value);
  if (fault !== undefined) return fault;
  const { type } = value as { type: string };
  if (type === 'text-delta') return undefined;
  return STORE_EVENT_TYPES.has(type)
    ? `a ${type} event (the store writes those itself)`
    : undefined;
}
