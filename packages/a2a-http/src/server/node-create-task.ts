import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseJsonText } from '@agentport/http';
import {
  type AnswerHeaders,
  callerSignal,
  readBody,
  writeAnswer,
  writeErrorAnswer,
} from '@agentport/http/node';
import { createTaskRequestSchema } from '../wire/task-schemas.ts';
import {
  closesConnection,
  createTask,
  type TaskRoutesOptions,
  taskBody,
  taskLocation,
} from './task-routes.ts';

/** What Hono's `context.json` answers with, so both paths send the same head. */
const TASK_CONTENT_TYPE = 'application/json';

async function run(
  options: TaskRoutesOptions,
  body: Buffer,
  pathname: string,
  wait: number | undefined,
  response: ServerResponse,
  headers: AnswerHeaders | undefined,
): Promise<void> {
  const caller = callerSignal(response);
  try {
    const request = parseJsonText(body, createTaskRequestSchema);
    const task = await createTask(options, request, wait, caller.signal);
    const head: Record<string, string> = {
      'content-type': TASK_CONTENT_TYPE,
      location: taskLocation(options, pathname, task.id),
    };
    if (closesConnection(options, wait)) head.connection = 'close';
    writeAnswer(response, 201, head, JSON.stringify(taskBody(task)), headers);
  } catch (error) {
    writeErrorAnswer(response, error, headers);
  } finally {
    caller.dispose();
  }
}

/**
 * Answers `POST /tasks` on Node's own request and response, as the Hono route does (201 with
 * `Location`, the same errors, a caller who leaves a long-poll cancels the task), with `headers`
 * added. `pathname` is the request's whole path (for `Location`); `wait` is already parsed. The
 * request must have passed `hasPlainJsonBody`.
 */
export function createTaskOnNode(
  options: TaskRoutesOptions,
  request: IncomingMessage,
  response: ServerResponse,
  pathname: string,
  wait: number | undefined,
  headers: AnswerHeaders | undefined,
): void {
  readBody(request, (body) => {
    void run(options, body, pathname, wait, response, headers);
  });
}
