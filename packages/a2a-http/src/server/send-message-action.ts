import { TaskNotFoundError } from '@agentport/core';
import { agentInputOf, parseJsonText, type RouteAction, ShuttingDownError } from '@agentport/http';
import { sendMessageRequestSchema } from '../wire/task-schemas.ts';
import { createWaitParser } from './create-task-action.ts';
import { closesConnection, type TaskRoutesOptions, taskBody, waitForTask } from './task-routes.ts';

const MESSAGES_SUFFIX = '/messages';

/**
 * The task id of a `.../tasks/{id}/messages` path (the segment before `/messages`, decoded); a
 * path whose id does not decode names no task.
 */
export function messageTaskId(path: string): string {
  const end = path.length - MESSAGES_SUFFIX.length;
  const segment = path.slice(path.lastIndexOf('/', end - 1) + 1, end);
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new TaskNotFoundError(segment);
  }
}

/**
 * `POST /tasks/{id}/messages` `{ input }`, declared once for the Hono route and the Node fast
 * path: the caller's next message for a task waiting for input (`input-required`), which runs
 * again; 200 with the task. With `wait`, answered once the task is terminal or paused again, or
 * the wait runs out. A caller who leaves that wait leaves the task running: unlike a
 * create-and-wait's, its id is known, and cancel is how to stop it. 409 `task_not_waiting` when
 * the task is not waiting (finished or running), 404 for a task of another agent or none.
 */
export function sendMessageAction(options: TaskRoutesOptions): RouteAction {
  const waitOf = createWaitParser();
  const { runner } = options;
  return {
    maxBodyBytes: options.maxBodyBytes,
    async run(call) {
      if (options.refusing.aborted) throw new ShuttingDownError();
      const wait = waitOf(call.search);
      const id = messageTaskId(call.path);
      const request = parseJsonText(call.body, sendMessageRequestSchema);
      if (options.refusing.aborted) throw new ShuttingDownError();
      let task = await runner.resume(id, agentInputOf(request.input));
      if (wait !== undefined && wait > 0) {
        task = await waitForTask(call.signal, options, task.id, wait);
      }
      const headers: Record<string, string> = {};
      if (closesConnection(options, wait)) headers.connection = 'close';
      return { status: 200, json: JSON.stringify(taskBody(task)), headers };
    },
  };
}
