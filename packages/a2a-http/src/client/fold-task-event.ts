import { type Artifact, isInterruptedStatus, TASK_STATUSES } from '@agentport/core';
import * as z from 'zod';
import { messageSchema, partSchema, taskErrorSchema } from '../wire/task-schemas.ts';
import type { A2ATask as Task } from '../wire/wire-task.ts';
import { parseJsonText } from './http-transport.ts';

const statusUpdateSchema = z.object({
  status: z.enum(TASK_STATUSES),
  timestamp: z.string().optional(),
  message: messageSchema.optional(),
  output: z.string().optional(),
  error: taskErrorSchema.optional(),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
});

const messageEventSchema = z.object({ message: messageSchema });

const artifactUpdateSchema = z.object({
  artifactId: z.string(),
  name: z.string().optional(),
  parts: z.array(partSchema),
  append: z.boolean().default(false),
});

const textDeltaSchema = z.object({ delta: z.string() });

/** An artifact chunk applied to a task's artifacts, as core's README says a reader folds it. */
function withChunk(
  artifacts: readonly Artifact[],
  chunk: z.output<typeof artifactUpdateSchema>,
): Artifact[] {
  const index = artifacts.findIndex((artifact) => artifact.artifactId === chunk.artifactId);
  const before = artifacts[index];
  const name = chunk.name ?? before?.name;
  const parts =
    chunk.append && before !== undefined ? [...before.parts, ...chunk.parts] : chunk.parts;
  const artifact = { artifactId: chunk.artifactId, ...(name === undefined ? {} : { name }), parts };
  if (index === -1) return [...artifacts, artifact as Artifact];
  return artifacts.map((other, at) => (at === index ? (artifact as Artifact) : other));
}

/**
 * A status update folded into a task: its status and message, what it set of output and error,
 * and the answer's schema of a pause (kept while paused, gone once the task runs again).
 */
function withStatus(task: Task, update: z.output<typeof statusUpdateSchema>): Task {
  const { statusMessage: _cleared, inputSchema, ...rest } = task;
  const schema =
    update.inputSchema ?? (isInterruptedStatus(update.status) ? inputSchema : undefined);
  return {
    ...rest,
    status: update.status,
    ...(update.message === undefined
      ? {}
      : { statusMessage: update.message as Task['statusMessage'] }),
    ...(update.output === undefined ? {} : { output: update.output }),
    ...(update.error === undefined ? {} : { error: update.error }),
    ...(update.timestamp === undefined ? {} : { updatedAt: update.timestamp }),
    ...(schema === undefined ? {} : { inputSchema: schema }),
  } as Task;
}

/**
 * A task after one event of its log (an SSE event of `GET /tasks/{id}/events`, named by its
 * type, its data the event's JSON), folded as core's README says: a `status-update` sets the
 * status, the status message and what it carries of output and error; a `message` adds to the
 * history; an `artifact-update` adds to or replaces its artifact; a `text-delta` grows the output;
 * any other event changes nothing but `seq`. A malformed event is a `MalformedResponseError`.
 */
export function foldTaskEvent(
  operation: string,
  task: Task,
  seq: number,
  type: string,
  data: string,
): Task {
  switch (type) {
    case 'status-update':
      return { ...withStatus(task, parseJsonText(operation, data, statusUpdateSchema)), seq };
    case 'message': {
      const { message } = parseJsonText(operation, data, messageEventSchema);
      return { ...task, messages: [...task.messages, message as Task['messages'][number]], seq };
    }
    case 'artifact-update': {
      const chunk = parseJsonText(operation, data, artifactUpdateSchema);
      return { ...task, artifacts: withChunk(task.artifacts, chunk), seq };
    }
    case 'text-delta': {
      const { delta } = parseJsonText(operation, data, textDeltaSchema);
      return { ...task, output: (task.output ?? '') + delta, seq };
    }
    default:
      return { ...task, seq };
  }
}
