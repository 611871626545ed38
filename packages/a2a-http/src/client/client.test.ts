import { CancellationError, type Task, TaskNotFoundError } from '@agentport/core';
import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteHttpError } from '../errors/remote-http-error.ts';
import { RemoteTaskNotFoundError } from '../errors/remote-task-not-found-error.ts';
import { createA2AHttpServer } from '../server/create-a2a-http-server.ts';
import { failingAgent } from '../testing/failing-agent.ts';
import { type Served, serve } from '../testing/serve.ts';
import { createA2AHttpClient } from './create-a2a-http-client.ts';

const failing = failingAgent;

let ticker: Served;
let echo: Served;
let failure: Served;
const tickerServer = createA2AHttpServer({ agent: createTickerAgent() });

beforeAll(async () => {
  ticker = await serve(tickerServer);
  echo = await serve(createA2AHttpServer({ agent: createEchoAgent() }));
  failure = await serve(createA2AHttpServer({ agent: failing }));
});

afterAll(async () => {
  await Promise.all([ticker.stop(), echo.stop(), failure.stop()]);
});

describe('createA2AHttpClient against a real server', () => {
  it('reads the card, creates a task, polls it and waits for it to complete', async () => {
    const client = createA2AHttpClient({ baseUrl: echo.url });
    expect(await client.getCard()).toMatchObject({ name: 'echo', endpoint: echo.url });
    const task = await client.createTask({ input: 'polled over http', metadata: { n: 1 } });
    expect(task).toMatchObject({ status: 'submitted', metadata: { n: 1 } });
    const polled = await client.getTask(task.id);
    expect(polled.id).toBe(task.id);
    const done = await client.waitForTask(task.id);
    expect(done).toMatchObject({ status: 'completed', output: 'polled over http' });
    const page = await client.listTasks({ limit: 1, status: 'completed' });
    expect(page.tasks.map((entry) => entry.id)).toEqual([task.id]);
  });

  it('accepts the card URL or a trailing slash as its base', async () => {
    for (const base of [`${echo.url}/.well-known/agent.json`, `${echo.url}/`]) {
      const client = createA2AHttpClient({ baseUrl: base });
      expect(client.baseUrl).toBe(echo.url);
      expect((await client.getCard()).name).toBe('echo');
    }
  });

  it('sends tiny and huge waits as plain decimals the server accepts', async () => {
    const client = createA2AHttpClient({ baseUrl: echo.url });
    for (const waitSeconds of [1e-7, 0.0004, 2.5, 1e21]) {
      const task = await client.createTask({ input: 'x' }, { waitSeconds });
      expect(await client.getTask(task.id, { waitSeconds })).toMatchObject({ id: task.id });
    }
  });

  it('waits by long-poll: one request however long the task runs', async () => {
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests += 1;
      return fetch(input, init);
    };
    const client = createA2AHttpClient({ baseUrl: ticker.url, fetch: counting });
    const task = await client.createTask({ input: '4 every 50ms' });
    const done = await client.waitForTask(task.id);
    expect(done).toMatchObject({ status: 'completed', output: 'tick 1\ntick 2\ntick 3\ntick 4' });
    expect(requests).toBe(2);
  });

  it('reports a failed task with its error', async () => {
    const client = createA2AHttpClient({ baseUrl: failure.url });
    const task = await client.createTask({ input: 'x' });
    const done = await client.waitForTask(task.id);
    expect(done.status).toBe('failed');
    expect(done.error).toEqual({ code: 'quota_exceeded', message: 'Out of quota' });
  });

  it('cancels a running task, idempotently, and reports 409 for a finished one', async () => {
    const client = createA2AHttpClient({ baseUrl: ticker.url });
    const task = await client.createTask({ input: '100 every 20ms' });
    const canceled = await client.cancelTask(task.id);
    expect(canceled.status).toBe('canceled');
    expect((await client.cancelTask(task.id)).status).toBe('canceled');
    expect((await tickerServer.runner.get(task.id)).status).toBe('canceled');

    const finished = await client.createTask({ input: '1' });
    await client.waitForTask(finished.id);
    const error = await client.cancelTask(finished.id).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RemoteHttpError);
    expect(error).toMatchObject({
      httpStatus: 409,
      remoteCode: 'task_not_cancelable',
      message: expect.stringMatching(
        /^cancelTask failed: the remote answered 409 task_not_cancelable/,
      ),
    });
  });

  it('streams task changes from the events route until terminal', async () => {
    const client = createA2AHttpClient({ baseUrl: ticker.url });
    const task = await client.createTask({ input: '3 every 30ms' });
    const seen: Task[] = [];
    for await (const change of client.watchTask(task.id)) seen.push(change);
    expect(seen.at(-1)).toMatchObject({ status: 'completed', output: 'tick 1\ntick 2\ntick 3' });
    expect(seen.map((change) => change.output)).toContain('tick 1\ntick 2');
  });

  it('rejects with a task-not-found error naming the operation', async () => {
    const client = createA2AHttpClient({ baseUrl: echo.url });
    for (const [operation, call] of [
      ['getTask', () => client.getTask('missing')],
      ['cancelTask', () => client.cancelTask('missing')],
      ['waitForTask', () => client.waitForTask('missing')],
    ] as const) {
      const error = await call().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RemoteTaskNotFoundError);
      expect(error).toBeInstanceOf(TaskNotFoundError);
      expect(error).toMatchObject({ code: 'task_not_found', taskId: 'missing', operation });
      expect((error as Error).message).toContain(`${operation} failed`);
    }
  });

  it('rejects with the server error code for a bad request', async () => {
    const client = createA2AHttpClient({ baseUrl: echo.url });
    const error = await client.createTask({ input: '' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      name: 'RemoteHttpError',
      httpStatus: 400,
      remoteCode: 'invalid_input',
      operation: 'createTask',
    });
  });

  it('abandons a long-poll when its signal aborts, with a CancellationError', async () => {
    const client = createA2AHttpClient({ baseUrl: ticker.url });
    const task = await client.createTask({ input: '5 every 10s' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    const error = await client
      .waitForTask(task.id, { signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CancellationError);
    expect((error as Error).message).toBe('waitForTask was canceled');
    expect(performance.now() - started).toBeLessThan(1_000);
    await client.cancelTask(task.id);
  });

  it('stops watching when its signal aborts, with a CancellationError', async () => {
    const client = createA2AHttpClient({ baseUrl: ticker.url });
    const task = await client.createTask({ input: '100 every 20ms' });
    const controller = new AbortController();
    const seen: Task[] = [];
    const watching = (async () => {
      for await (const change of client.watchTask(task.id, { signal: controller.signal })) {
        seen.push(change);
        if (seen.length === 2) controller.abort();
      }
    })();
    const error = await watching.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CancellationError);
    expect((error as Error).message).toBe('watchTask was canceled');
    expect(seen).toHaveLength(2);
    await client.cancelTask(task.id);
  });

  it('resolves waitForTask with the task as it is when its timeout runs out', async () => {
    const client = createA2AHttpClient({ baseUrl: ticker.url });
    const task = await client.createTask({ input: '5 every 10s' });
    const current = await client.waitForTask(task.id, { timeoutMs: 200 });
    expect(current.status).toBe('working');
    await client.cancelTask(task.id);
  });
});
