import { type Agent, createMemoryTaskStore, defineAgent, type Task } from '@agentport/core';
import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { createParser } from 'eventsource-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { postJson } from '../testing/serve.ts';
import { MAX_WAIT_SECONDS } from '../wire/task-schemas.ts';
import { type A2AHttpServer, createA2AHttpServer } from './create-a2a-http-server.ts';
import { parseWait } from './task-routes.ts';

const servers: A2AHttpServer[] = [];

function server(agent: Agent = createEchoAgent()): A2AHttpServer {
  const created = createA2AHttpServer({ agent });
  servers.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((created) => created.close()));
});

async function create(target: A2AHttpServer, input: string): Promise<Task> {
  const response = await postJson(target.app, '/tasks', { input });
  expect(response.status).toBe(201);
  return ((await response.json()) as { task: Task }).task;
}

async function sseEvents(
  response: Response,
): Promise<{ event?: string; id?: string; data: string }[]> {
  const events: { event?: string; id?: string; data: string }[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(await response.text());
  return events;
}

describe('POST /tasks', () => {
  it('answers 201 with the submitted task and its Location, and runs it', async () => {
    const target = server();
    const response = await postJson(target.app, '/tasks', {
      input: 'hello there',
      metadata: { requestId: 'r1' },
    });
    expect(response.status).toBe(201);
    const { task } = (await response.json()) as { task: Task };
    expect(task).toMatchObject({
      agentName: 'echo',
      status: 'submitted',
      input: 'hello there',
      metadata: { requestId: 'r1' },
    });
    expect(response.headers.get('location')).toBe(`/tasks/${task.id}`);
    const done = await target.runner.wait(task.id);
    expect(done).toMatchObject({ status: 'completed', output: 'hello there' });
  });

  it('ignores unknown fields', async () => {
    const response = await postJson(server().app, '/tasks', { input: 'hi', priority: 'high' });
    expect(response.status).toBe(201);
    expect((await response.json()).task).not.toHaveProperty('priority');
  });
});

describe('POST /tasks?wait=SECONDS', () => {
  it('answers 201 once the task is terminal', async () => {
    const target = server(createTickerAgent());
    const response = await postJson(target.app, '/tasks?wait=10', { input: '3 every 30ms' });
    expect(response.status).toBe(201);
    const { task } = await response.json();
    expect(task).toMatchObject({ status: 'completed', output: 'tick 1\ntick 2\ntick 3' });
    expect(response.headers.get('location')).toBe(`/tasks/${task.id}`);
  });

  it('answers 201 with the task as it is when the wait runs out', async () => {
    const target = server(createTickerAgent());
    const response = await postJson(target.app, '/tasks?wait=0.1', { input: '5 every 10s' });
    expect(response.status).toBe(201);
    expect((await response.json()).task.status).toBe('working');
  });

  it('cancels the task when the caller goes away before the answer', async () => {
    const target = server(createTickerAgent());
    const controller = new AbortController();
    const pending = target.app.request('/tasks?wait=60', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: '5 every 10s' }),
      signal: controller.signal,
    });
    await expect.poll(async () => (await target.runner.list()).tasks.length).toBe(1);
    controller.abort();
    await Promise.resolve(pending).catch(() => undefined);
    const [task] = (await target.runner.list()).tasks;
    await expect
      .poll(async () => (await target.runner.get(task?.id ?? '')).status)
      .toBe('canceled');
  });
});

describe('GET /tasks/{id}', () => {
  it('answers the task with its current status and output', async () => {
    const target = server();
    const task = await create(target, 'some words');
    await target.runner.wait(task.id);
    const response = await target.app.request(`/tasks/${task.id}`);
    expect(response.status).toBe(200);
    expect((await response.json()).task).toMatchObject({
      id: task.id,
      status: 'completed',
      output: 'some words',
    });
  });

  it('long-polls with ?wait until the task is terminal', async () => {
    const target = server(createTickerAgent());
    const task = await create(target, '3 every 40ms');
    const started = performance.now();
    const response = await target.app.request(`/tasks/${task.id}?wait=10`);
    const elapsed = performance.now() - started;
    expect((await response.json()).task).toMatchObject({
      status: 'completed',
      output: 'tick 1\ntick 2\ntick 3',
    });
    expect(elapsed).toBeGreaterThanOrEqual(60);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('answers the task as it is when the wait runs out', async () => {
    const target = server(createTickerAgent());
    const task = await create(target, '5 every 10s');
    const started = performance.now();
    const response = await target.app.request(`/tasks/${task.id}?wait=0.2`);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect((await response.json()).task.status).toBe('working');
  });

  it('caps a wait at 25 s, below the 30 s and 60 s proxies give an answer by default', () => {
    expect(MAX_WAIT_SECONDS).toBe(25);
    expect(parseWait('3600')).toBe(25);
    expect(parseWait('24.5')).toBe(24.5);
  });

  it('accepts a wait above the cap and answers at once for a terminal task', async () => {
    const target = server();
    const task = await create(target, 'hi');
    await target.runner.wait(task.id);
    const response = await target.app.request(`/tasks/${task.id}?wait=3600`);
    expect(response.status).toBe(200);
    expect((await response.json()).task.status).toBe('completed');
  });

  it('ends a pending long-poll when the caller goes away', async () => {
    const target = server(createTickerAgent());
    const task = await create(target, '5 every 10s');
    const controller = new AbortController();
    const pending = target.app.request(`/tasks/${task.id}?wait=60`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    const response = await pending;
    expect(performance.now() - started).toBeLessThan(2_000);
    expect((await response.json()).task.status).toBe('working');
  });
});

describe('POST /tasks/{id}/cancel', () => {
  it('cancels a working task and aborts its agent, then answers it unchanged again', async () => {
    let aborted = false;
    const waiter = defineAgent({
      name: 'waiter',
      async *run(_input, { signal }) {
        yield { type: 'text-delta', delta: 'started' };
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        aborted = true;
      },
    });
    const target = server(waiter);
    const task = await create(target, 'go');
    await expect.poll(async () => (await target.runner.get(task.id)).output).toBe('started');
    const response = await target.app.request(`/tasks/${task.id}/cancel`, { method: 'POST' });
    expect(response.status).toBe(200);
    expect((await response.json()).task).toMatchObject({ status: 'canceled', output: 'started' });
    await expect.poll(() => aborted).toBe(true);

    const again = await target.app.request(`/tasks/${task.id}/cancel`, { method: 'POST' });
    expect(again.status).toBe(200);
    expect((await again.json()).task).toEqual(await target.runner.get(task.id));
  });

  it('cancels a submitted task that has not started', async () => {
    const target = createA2AHttpServer({ agent: createTickerAgent(), maxConcurrency: 1 });
    servers.push(target);
    await create(target, '5 every 10s');
    const queued = await create(target, '1');
    const response = await target.app.request(`/tasks/${queued.id}/cancel`, { method: 'POST' });
    expect((await response.json()).task.status).toBe('canceled');
  });

  it('answers 409 when cancelling a completed task', async () => {
    const target = server();
    const task = await create(target, 'done');
    await target.runner.wait(task.id);
    const response = await target.app.request(`/tasks/${task.id}/cancel`, { method: 'POST' });
    expect(response.status).toBe(409);
    expect((await response.json()).error.code).toBe('task_not_cancelable');
  });
});

describe('GET /tasks', () => {
  it('lists tasks newest first with paging and a status filter', async () => {
    const target = server();
    const ids: string[] = [];
    for (const input of ['a', 'b', 'c']) {
      const task = await create(target, input);
      await target.runner.wait(task.id);
      ids.push(task.id);
    }
    const first = await (await target.app.request('/tasks?limit=2')).json();
    expect(first.tasks.map((task: Task) => task.id)).toEqual([ids[2], ids[1]]);
    expect(typeof first.nextCursor).toBe('string');
    const second = await (
      await target.app.request(`/tasks?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`)
    ).json();
    expect(second.tasks.map((task: Task) => task.id)).toEqual([ids[0]]);
    expect(second.nextCursor).toBeUndefined();
    const failed = await (await target.app.request('/tasks?status=failed')).json();
    expect(failed.tasks).toEqual([]);
  });
});

describe('GET /tasks/{id}/events', () => {
  it('streams the task, then every later event of its log numbered by seq, ending at its terminal status', async () => {
    const target = server(createTickerAgent());
    const task = await create(target, '3 every 30ms');
    const response = await target.app.request(`/tasks/${task.id}/events`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = await sseEvents(response);
    const [first, ...rest] = events;
    expect(first?.event).toBe('task');
    const snapshot = (JSON.parse(first?.data ?? '') as { task: Task }).task;
    expect(first?.id).toBe(String(snapshot.seq));
    const log = await target.runner.events(task.id, { after: snapshot.seq });
    expect(rest.map((event) => Number(event.id))).toEqual(log.map((entry) => entry.seq));
    expect(rest.map((event) => event.event)).toEqual(log.map((entry) => entry.event.type));
    expect(rest.map((event) => JSON.parse(event.data))).toEqual(log.map((entry) => entry.event));
    expect(rest.filter((event) => event.event === 'text-delta')).toHaveLength(3);
    expect(JSON.parse(events.at(-1)?.data ?? '')).toMatchObject({
      type: 'status-update',
      status: 'completed',
    });
  });

  it('sends only the terminal task for a finished task', async () => {
    const target = server();
    const task = await create(target, 'x');
    await target.runner.wait(task.id);
    const events = await sseEvents(await target.app.request(`/tasks/${task.id}/events`));
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]?.data ?? '').task.status).toBe('completed');
  });

  it('ends with the canceled status update when the task is canceled', async () => {
    const target = server(createTickerAgent());
    const task = await create(target, '100 every 20ms');
    const response = await target.app.request(`/tasks/${task.id}/events`);
    setTimeout(() => void target.runner.cancel(task.id), 80);
    const events = await sseEvents(response);
    expect(events.at(-1)?.event).toBe('status-update');
    expect(JSON.parse(events.at(-1)?.data ?? '').status).toBe('canceled');
  });
});

describe('events stream details', () => {
  it('sends heartbeat comments while the task is idle', async () => {
    const target = createA2AHttpServer({ agent: createTickerAgent(), heartbeatMs: 20 });
    servers.push(target);
    const task = await create(target, '2 every 10s');
    const controller = new AbortController();
    const response = await target.app.request(`/tasks/${task.id}/events`, {
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes(': heartbeat')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text).toContain(': heartbeat');
    controller.abort();
    await reader.cancel();
  });
});

describe('the store option', () => {
  it('keeps the tasks in the given store', async () => {
    const store = createMemoryTaskStore();
    const target = createA2AHttpServer({ agent: createEchoAgent(), store });
    servers.push(target);
    const task = await create(target, 'stored');
    expect((await store.get(task.id))?.input).toBe('stored');
  });
});

describe('close()', () => {
  it('refuses new tasks with 503, and pending long-polls answer with the canceled task', async () => {
    const target = server(createTickerAgent());
    const task = await create(target, '5 every 10s');
    const pending = target.app.request(`/tasks/${task.id}?wait=60`);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await target.close();
    expect((await (await pending).json()).task.status).toBe('canceled');
    const refused = await postJson(target.app, '/tasks', { input: '1' });
    expect(refused.status).toBe(503);
    expect((await refused.json()).error.code).toBe('shutting_down');
  });
});
