import { isSettledStatus, type Task, type TaskRunner, userMessage } from '@agentport/core';
import {
  agentInputOf,
  honoAction,
  methodNotAllowed,
  parseQuery,
  ShuttingDownError,
} from '@agentport/http';
import type { Context, Hono } from 'hono';
import type * as z from 'zod';
import {
  type createTaskRequestSchema,
  listTasksQuerySchema,
  MAX_WAIT_SECONDS,
  waitQuerySchema,
} from '../wire/task-schemas.ts';
import { type A2ATask, wirePage, wireTask } from '../wire/wire-task.ts';
import { createTaskAction } from './create-task-action.ts';
import { sendMessageAction } from './send-message-action.ts';
import { taskEventsHandler } from './task-events.ts';

/** What the task routes need from their server. */
export interface TaskRoutesOptions {
  runner: TaskRunner;
  maxBodyBytes: number;
  /** Aborted when the server stops taking tasks: `POST /tasks` answers 503. */
  refusing: AbortSignal;
  /**
   * Aborted when the server has closed (after `runner.close()`, which ends every wait and watch):
   * a long-poll then answers at once, and with `Connection: close`.
   */
  closing: AbortSignal;
  /** Idle time before an SSE heartbeat comment, in milliseconds. */
  heartbeatMs?: number;
  /**
   * The path of the server's public URL (`/gw` for `https://host/gw`, or empty), put before the
   * request's path in `Location`: behind a proxy that serves the gateway under a prefix, a
   * `Location` without it would name another resource.
   */
  publicPath?: string;
}

/** The parsed body of `POST /tasks`. */
export type CreateTaskBody = z.output<typeof createTaskRequestSchema>;

/**
 * The `Location` of a task created at `path` (`/tasks`, under any mount, trailing slashes cut),
 * after the server's public path.
 */
export function taskLocation(options: TaskRoutesOptions, path: string, id: string): string {
  return `${options.publicPath ?? ''}${path.endsWith('/') ? path.replace(/\/+$/, '') : path}/${id}`;
}

/** The JSON shape of every single-task answer (the task without its agent's `inputRequest`). */
export function taskBody(task: Task): { task: A2ATask } {
  return { task: wireTask(task) };
}

/**
 * Long-polls: the task once terminal or paused for input, or as it is when the wait runs out, the
 * caller leaves or the runner closes.
 */
export async function waitForTask(
  caller: AbortSignal,
  options: TaskRoutesOptions,
  id: string,
  seconds: number,
): Promise<Task> {
  const { runner, closing } = options;
  const current = await runner.get(id);
  if (seconds === 0 || isSettledStatus(current.status) || closing.aborted) return current;
  try {
    return await runner.wait(id, { signal: caller, timeoutMs: seconds * 1000 });
  } catch (error) {
    if (caller.aborted) return runner.get(id);
    throw error;
  }
}

/**
 * Parses a `wait` query parameter: seconds, capped at `MAX_WAIT_SECONDS`; a 400 `invalid_input`
 * when malformed.
 */
export function parseWait(wait: string | undefined): number | undefined {
  if (wait === undefined) return undefined;
  const seconds = parseQuery({ wait }, waitQuerySchema).wait;
  return seconds === undefined ? undefined : Math.min(seconds, MAX_WAIT_SECONDS);
}

/** The `wait` query parameter alone (reading one parameter is cheaper than all of them). */
function waitSeconds(context: Context): number | undefined {
  return parseWait(context.req.query('wait'));
}

/**
 * `POST /tasks` once its body and `wait` are parsed: submits the task (or, when its `contextId`
 * has a task waiting for input, continues that one) and, when asked, waits for it; a task whose
 * caller left while waiting is canceled (nobody could ever learn its id). `id` is the id a new
 * task gets (given with a `contextId`, to tell a new task from a continued one). Shared by the
 * Hono route and the Node fast path.
 */
export function createTask(
  options: TaskRoutesOptions,
  request: CreateTaskBody,
  wait: number | undefined,
  caller: { readonly signal: AbortSignal },
  id?: string,
): Promise<Task> {
  // The server may have stopped taking tasks while the body came in: a task made now would never
  // run (its runner is closed or closing).
  if (options.refusing.aborted) return Promise.reject(new ShuttingDownError());
  const { runner } = options;
  // A string becomes a message too, so the task's history starts with what its caller said.
  const input =
    typeof request.input === 'string' ? userMessage(request.input) : agentInputOf(request.input);
  const { metadata, contextId } = request;
  // Built by hand: without a contextId or metadata (the common create) it stays empty.
  const submitOptions: { metadata?: Record<string, unknown>; contextId?: string; id?: string } = {};
  if (metadata !== undefined) submitOptions.metadata = metadata;
  if (contextId !== undefined) submitOptions.contextId = contextId;
  if (id !== undefined) submitOptions.id = id;
  if (wait === undefined || wait === 0) return runner.submit(input, submitOptions);
  return runner.submitAndWait(input, {
    ...submitOptions,
    signal: caller.signal,
    timeoutMs: wait * 1000,
  });
}

/**
 * Whether a create's answer should close the connection: it waited and the server is shutting
 * down (its long-poll was answered by the shutdown, and the server takes no more tasks).
 */
export function closesConnection(options: TaskRoutesOptions, wait: number | undefined): boolean {
  return wait !== undefined && wait > 0 && (options.refusing.aborted || options.closing.aborted);
}

/**
 * Registers `/tasks`, `/tasks/{id}`, `/tasks/{id}/messages`, `/tasks/{id}/cancel` and
 * `/tasks/{id}/events` on `app`.
 */
export function registerTaskRoutes(app: Hono, options: TaskRoutesOptions): void {
  const { runner, closing } = options;

  app.post('/tasks', honoAction(createTaskAction(options)));
  app.get('/tasks', async (context) => {
    const query = parseQuery(context.req.query(), listTasksQuerySchema);
    const page = await runner.list(query);
    return context.json(wirePage(page));
  });
  app.all('/tasks', methodNotAllowed(['GET', 'HEAD', 'POST']));

  app.get('/tasks/:id', async (context) => {
    const task = await waitForTask(
      context.req.raw.signal,
      options,
      context.req.param('id'),
      waitSeconds(context) ?? 0,
    );
    // Answered because the server is closing: don't keep the connection open for more.
    if (closing.aborted) context.header('connection', 'close');
    return context.json(taskBody(task));
  });
  app.all('/tasks/:id', methodNotAllowed(['GET', 'HEAD']));

  app.post('/tasks/:id/messages', honoAction(sendMessageAction(options)));
  app.all('/tasks/:id/messages', methodNotAllowed(['POST']));

  app.post('/tasks/:id/cancel', async (context) => {
    const task = await runner.cancel(context.req.param('id'));
    return context.json(taskBody(task));
  });
  app.all('/tasks/:id/cancel', methodNotAllowed(['POST']));

  app.get('/tasks/:id/events', taskEventsHandler({ runner, heartbeatMs: options.heartbeatMs }));
  app.all('/tasks/:id/events', methodNotAllowed(['GET', 'HEAD']));
}
