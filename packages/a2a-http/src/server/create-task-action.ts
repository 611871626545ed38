import { randomUuid } from '@agentport/core/internal';
import { parseJsonText, type RouteAction, ShuttingDownError } from '@agentport/http';
import { createTaskRequestSchema } from '../wire/task-schemas.ts';
import {
  closesConnection,
  createTask,
  parseWait,
  type TaskRoutesOptions,
  taskBody,
  taskLocation,
} from './task-routes.ts';

/**
 * The `wait` of a query string, with the last one remembered: callers long-poll with the same
 * query again and again, and parsing it costs more than the rest of the routing.
 */
export function createWaitParser(): (search: string) => number | undefined {
  let lastSearch = '';
  let lastWait: number | undefined;
  return (search) => {
    if (search === '') return undefined;
    if (search === lastSearch) return lastWait;
    const wait = parseWait(new URLSearchParams(search).get('wait') ?? undefined);
    lastSearch = search;
    lastWait = wait;
    return wait;
  };
}

/**
 * `POST /tasks`, declared once for the Hono route and the Node fast path: 201 with the new task
 * and its `Location`, or 200 with the task a `contextId` continued (one waiting for input); with
 * `wait`, once the task is terminal or paused, or the wait runs out (a caller who leaves a
 * long-poll cancels the task).
 */
export function createTaskAction(options: TaskRoutesOptions): RouteAction {
  const waitOf = createWaitParser();
  return {
    maxBodyBytes: options.maxBodyBytes,
    async run(call) {
      if (options.refusing.aborted) throw new ShuttingDownError();
      const wait = waitOf(call.search);
      const request = parseJsonText(call.body, createTaskRequestSchema);
      // Only a create naming a conversation can continue a task: it alone needs an id of its own
      // chosen here, to tell a new task (that id) from a continued one.
      const id = request.contextId === undefined ? undefined : randomUuid();
      const task = await createTask(options, request, wait, call, id);
      const headers: Record<string, string> = {
        location: taskLocation(options, call.path, task.id),
      };
      if (closesConnection(options, wait)) headers.connection = 'close';
      const status = id === undefined || task.id === id ? 201 : 200;
      return { status, json: JSON.stringify(taskBody(task)), headers };
    },
  };
}
