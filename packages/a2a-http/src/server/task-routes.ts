import { isTerminalStatus, linkSignals, type Task, type TaskRunner } from '@agentport/core';
import {
  limitBody,
  methodNotAllowed,
  parseJsonBody,
  ShuttingDownError,
  SSE_HEADERS,
  setResponseHeader,
  streamSSE,
} from '@agentport/rest-sse';
import type { Context, Hono } from 'hono';
import {
  createTaskRequestSchema,
  listTasksQuerySchema,
  waitQuerySchema,
} from '../wire/task-schemas.ts';
import { parseQuery } from './parse-query.ts';

/** What the task routes need from their server. */
export interface TaskRoutesOptions {
  runner: TaskRunner;
  maxBodyBytes: number;
  /** Aborted when the server stops taking tasks: `POST /tasks` answers 503. */
  refusing: AbortSignal;
  /** Aborted when the server closes: long-polls answer at once, event streams end. */
  closing: AbortSignal;
  /** Idle time before an SSE heartbeat comment, in milliseconds. */
  heartbeatMs?: number;
}

function taskBody(task: Task): { task: Task } {
  return { task };
}

/**
 * Long-polls: the task once terminal, or as it is when the wait runs out or the server closes.
 * `known` is the task as the caller just got it (a fresh create), which saves reading it again.
 */
async function waitForTask(
  context: Context,
  options: TaskRoutesOptions,
  id: string,
  seconds: number,
  known?: Task,
): Promise<Task> {
  const { runner, closing } = options;
  const current = known ?? (await runner.get(id));
  if (seconds === 0 || isTerminalStatus(current.status) || closing.aborted) return current;
  const linked = linkSignals([context.req.raw.signal, closing]);
  try {
    return await runner.wait(id, { signal: linked.signal, timeoutMs: seconds * 1000 });
  } catch (error) {
    if (linked.signal.aborted) return runner.get(id);
    throw error;
  } finally {
    linked.dispose();
  }
}

/** The `wait` query parameter alone (reading one parameter is cheaper than all of them). */
function waitSeconds(context: Context): number | undefined {
  const wait = context.req.query('wait');
  return wait === undefined ? undefined : parseQuery({ wait }, waitQuerySchema).wait;
}

/** Registers `/tasks`, `/tasks/{id}`, `/tasks/{id}/cancel` and `/tasks/{id}/events` on `app`. */
export function registerTaskRoutes(app: Hono, options: TaskRoutesOptions): void {
  const { runner, closing } = options;

  app.post('/tasks', limitBody(options.maxBodyBytes), async (context) => {
    if (options.refusing.aborted) throw new ShuttingDownError();
    const wait = waitSeconds(context);
    const request = await parseJsonBody(context, createTaskRequestSchema);
    let task = await runner.submit(request.input, {
      ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
    });
    if (wait !== undefined && wait > 0) {
      task = await waitForTask(context, options, task.id, wait, task);
      if (context.req.raw.signal.aborted && !isTerminalStatus(task.status)) {
        // The caller left before learning the task's id, so nobody could ever cancel it.
        task = await runner.cancel(task.id);
      }
      if (closing.aborted) context.header('connection', 'close');
    }
    setResponseHeader(context, 'location', `${context.req.path.replace(/\/+$/, '')}/${task.id}`);
    return context.json(taskBody(task), 201);
  });
  app.get('/tasks', async (context) => {
    const query = parseQuery(context.req.query(), listTasksQuerySchema);
    const page = await runner.list(query);
    return context.json(page);
  });
  app.all('/tasks', methodNotAllowed(['GET', 'HEAD', 'POST']));

  app.get('/tasks/:id', async (context) => {
    const task = await waitForTask(
      context,
      options,
      context.req.param('id'),
      waitSeconds(context) ?? 0,
    );
    // Answered because the server is closing: don't keep the connection open for more.
    if (closing.aborted) context.header('connection', 'close');
    return context.json(taskBody(task));
  });
  app.all('/tasks/:id', methodNotAllowed(['GET', 'HEAD']));

  app.post('/tasks/:id/cancel', async (context) => {
    const task = await runner.cancel(context.req.param('id'));
    return context.json(taskBody(task));
  });
  app.all('/tasks/:id/cancel', methodNotAllowed(['POST']));

  app.get('/tasks/:id/events', async (context) => {
    const id = context.req.param('id');
    await runner.get(id);
    // Hono answers HEAD with the GET handler's headers: never start a stream nobody reads.
    if (context.req.raw.method === 'HEAD') return new Response(null, { headers: SSE_HEADERS });
    return streamSSE(
      context,
      async (writer) => {
        const linked = linkSignals([writer.signal, closing]);
        let sequence = 0;
        try {
          for await (const task of runner.watch(id, { signal: linked.signal })) {
            sequence += 1;
            writer.write({ event: 'task', data: JSON.stringify(taskBody(task)), id: sequence });
          }
        } finally {
          linked.dispose();
        }
      },
      options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs },
    );
  });
  app.all('/tasks/:id/events', methodNotAllowed(['GET', 'HEAD']));
}
