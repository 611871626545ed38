import type { Artifact, Message, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';

/** The states after which a task never changes again. */
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

function mergeArtifacts(persisted: Artifact[], incoming: Artifact[] | undefined): Artifact[] {
  if (incoming === undefined || incoming.length === 0) return persisted;
  const incomingById = new Map(incoming.map((artifact) => [artifact.artifactId, artifact]));
  const merged = persisted.map((artifact) => incomingById.get(artifact.artifactId) ?? artifact);
  const seen = new Set(persisted.map((artifact) => artifact.artifactId));
  for (const artifact of incoming) if (!seen.has(artifact.artifactId)) merged.push(artifact);
  return merged;
}

function withMessage(history: Message[] | undefined, message: Message, first: boolean): Message[] {
  const list = history ?? [];
  if (list.some((entry) => entry.messageId === message.messageId)) return list;
  return first ? [message, ...list] : [...list, message];
}

/**
 * The state of one request's task, built once and updated in place by each event, with the same
 * merge rules as the SDK's `ResultManager` (history, artifacts by id, metadata, the user message
 * first, status messages appended, nothing after a terminal state) but without deep copies: the
 * task object is updated at its top level only, and every list or artifact that changes is
 * replaced, never mutated, so a snapshot (`{ ...task }`) handed out earlier stays as it was.
 */
export class TaskProgress {
  /** The task, once the executor has published it. */
  task: Task | undefined;
  /** The message the executor answered with instead of a task (ends the request). */
  message: Message | undefined;
  readonly #userMessage: Message;

  constructor(userMessage: Message) {
    this.#userMessage = userMessage;
  }

  /**
   * Adds a follow-up message that the SDK is appending to the stored task (a request joining this
   * one), so that this request's next saves keep it; false when the task cannot take it.
   */
  join(message: Message): boolean {
    const task = this.task;
    if (task === undefined || task.id !== message.taskId) return false;
    if (message.contextId && message.contextId !== task.contextId) return false;
    const state = task.status?.state;
    if (state !== undefined && TERMINAL_STATES.has(state)) return false;
    task.history = withMessage(task.history, message, false);
    return true;
  }

  /** Applies one event; true when the task changed (and so should be saved). */
  apply(event: AgentExecutionEvent): boolean {
    switch (event.kind) {
      case 'message':
        this.message = event.data;
        return false;
      case 'task': {
        const incoming = event.data;
        const current = this.task?.id === incoming.id ? this.task : undefined;
        const task: Task = { ...incoming, artifacts: incoming.artifacts ?? [] };
        if (current !== undefined) {
          if ((incoming.history ?? []).length === 0) task.history = current.history;
          task.artifacts = mergeArtifacts(current.artifacts ?? [], incoming.artifacts);
          if (current.metadata !== undefined || incoming.metadata !== undefined) {
            task.metadata = { ...current.metadata, ...incoming.metadata };
          }
        }
        task.history = withMessage(task.history, this.#userMessage, true);
        this.task = task;
        return true;
      }
      case 'statusUpdate': {
        const update = event.data;
        const task = this.task;
        if (task === undefined || task.id !== update.taskId) return false;
        const state = task.status?.state;
        if (state !== undefined && TERMINAL_STATES.has(state) && update.status?.state !== state) {
          return false;
        }
        task.status = update.status;
        if (update.metadata) task.metadata = { ...task.metadata, ...update.metadata };
        const message = update.status?.message;
        if (message) task.history = withMessage(task.history, message, false);
        return true;
      }
      case 'artifactUpdate': {
        const update = event.data;
        const artifact = update.artifact;
        const task = this.task;
        if (artifact === undefined || task === undefined || task.id !== update.taskId) return false;
        const artifacts = task.artifacts ?? [];
        const index = artifacts.findIndex((other) => other.artifactId === artifact.artifactId);
        const existing = artifacts[index];
        if (existing === undefined) task.artifacts = [...artifacts, artifact];
        else if (!update.append) task.artifacts = artifacts.with(index, artifact);
        else {
          task.artifacts = artifacts.with(index, {
            ...existing,
            parts: [...(existing.parts ?? []), ...(artifact.parts ?? [])],
            description: artifact.description || existing.description,
            name: artifact.name || existing.name,
            metadata: artifact.metadata
              ? { ...existing.metadata, ...artifact.metadata }
              : existing.metadata,
          });
        }
        if (update.metadata) task.metadata = { ...task.metadata, ...update.metadata };
        return true;
      }
    }
  }
}
