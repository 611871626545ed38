import {
  isInterruptedStatus,
  type JsonSchema,
  type Task,
  type TaskEvent,
  type TaskPage,
} from '@agentport/core';

/**
 * A task as this protocol carries it: core's `Task` without `inputRequest` (its `state` is the
 * agent's own, never shown to callers), with `inputSchema`, the JSON Schema of the answer the
 * agent expects, while the task is paused for one that gave it.
 */
export type A2ATask = Omit<Task, 'inputRequest'> & {
  /** The JSON Schema of the answer a paused (`input-required`) task expects, when its agent gave one. */
  readonly inputSchema?: JsonSchema;
};

/** A page of tasks as this protocol carries it. */
export interface A2ATaskPage {
  readonly tasks: readonly A2ATask[];
  readonly nextCursor?: string;
}

/**
 * A task as it goes on the wire: the same object when it has no `inputRequest` (every task that
 * never paused: no copy on the hot path), else a copy without it and with its `inputSchema`.
 */
export function wireTask(task: Task): A2ATask {
  if (task.inputRequest === undefined) return task;
  const { inputRequest, ...rest } = task;
  const schema = isInterruptedStatus(task.status) ? inputRequest.schema : undefined;
  return schema === undefined ? rest : { ...rest, inputSchema: schema };
}

/** A page of tasks as it goes on the wire (the same page when no task of it paused). */
export function wirePage(page: TaskPage): A2ATaskPage {
  if (!page.tasks.some((task) => task.inputRequest !== undefined)) return page;
  return { ...page, tasks: page.tasks.map(wireTask) };
}

/**
 * A log event as it goes on the wire: a status update that pauses the task carries the schema of
 * the answer as `inputSchema`, never its `inputRequest` (the agent's state); others as they are.
 */
export function wireEvent(event: TaskEvent): unknown {
  if (event.type !== 'status-update' || event.inputRequest === undefined) return event;
  const { inputRequest, ...rest } = event;
  return inputRequest.schema === undefined ? rest : { ...rest, inputSchema: inputRequest.schema };
}
