import type {
  Artifact,
  Message,
  Task,
  TaskError,
  TaskInputRequest,
  TaskStatus,
} from '@agentport/core';

/** A row of the tasks table, as `pg` reads it. */
export interface TaskRow {
  id: string;
  sequence: string;
  context_id: string;
  agent_name: string;
  status: TaskStatus;
  input: string;
  output: string | null;
  status_message: Message | null;
  error: TaskError | null;
  input_request: TaskInputRequest | null;
  messages: Message[];
  artifacts: Artifact[];
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  seq: number;
  earliest_after: number;
  retain_ms: string;
  expires_at: Date | null;
}

/** The columns a task is read from. */
export const TASK_COLUMNS =
  'id, sequence, context_id, agent_name, status, input, output, status_message, error, input_request, messages, artifacts, metadata, created_at, updated_at, seq, earliest_after, retain_ms';

/** A task as a row holds it, not frozen yet (a step changes it first). */
export function draftOf(row: TaskRow): Task & Record<string, unknown> {
  const task: Record<string, unknown> = {
    id: row.id,
    contextId: row.context_id,
    agentName: row.agent_name,
    status: row.status,
    input: row.input,
    messages: row.messages,
    artifacts: row.artifacts,
    metadata: row.metadata,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    seq: row.seq,
  };
  if (row.status_message !== null) task.statusMessage = row.status_message;
  if (row.output !== null) task.output = row.output;
  if (row.error !== null) task.error = row.error;
  if (row.input_request !== null) task.inputRequest = row.input_request;
  return task as unknown as Task & Record<string, unknown>;
}

/** What the store hands out: frozen, with its history and artifacts (a copy read from the row). */
export function frozenTask(task: Task): Task {
  Object.freeze(task.messages);
  Object.freeze(task.artifacts);
  Object.freeze(task.metadata);
  return Object.freeze(task);
}

/** The task a row holds, frozen. */
export function taskOf(row: TaskRow): Task {
  return frozenTask(draftOf(row));
}
