import { createMemoryTaskStore, defineAgent, type Task, type TaskStore } from '@agentport/core';
import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { readSSEEvents } from '@agentport/http/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { foldTaskEvents } from '../testing/fold-task-events.ts';
import { postJson, type Served, serve } from '../testing/serve.ts';
import { type A2AHttpServer, createA2AHttpServer } from './create-a2a-http-server.ts';

const stops: Served[] = [];
const servers: A2AHttpServer[] = [];

afterEach(async () => {
  await Promise.all(stops.splice(0).map((served) => served.stop()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function served(server: A2AHttpServer): Promise<Served> {
  const started = await serve(server);
  stops.push(started);
  return started;
}

async function createTask(url: string, input: string): Promise<Task> {
  const response = await fetch(`${url}/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
  });
  return ((await response.json()) as { task: Task }).task;
}

async function errorOf(response: Response): Promise<{ status: number; code: string }> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const { error } = (await response.json()) as { error: { code: string } };
  return { status: response.status, code: error.code };
}

describe.each([
  ['the Last-Event-ID header', (id: string) => ({ path: '', headers: { 'last-event-id': id } })],
  [
    'the lastEventId query parameter',
    (id: string) => ({ path: `?lastEventId=${id}`, headers: {} }),
  ],
])('GET /tasks/{id}/events rejoined with %s', (_, resume) => {
  it('continues at the event after it, with no gap and no duplicate, then follows live', async () => {
    const server = createA2AHttpServer({ agent: createTickerAgent() });
    const { url } = await served(server);
    const task = await createTask(url, '6 every 40ms');
    const events = `${url}/tasks/${task.id}/events`;
    // The snapshot and two events of the log, then the reader drops the stream.
    const before = await readSSEEvents(await fetch(events), 3);
    expect(before[0]?.event).toBe('task');
    const lastId = before.at(-1)?.id as string;
    const { path, headers } = resume(lastId);
    const rejoined = await fetch(`${events}${path}`, { headers });
    expect(rejoined.status).toBe(200);
    const after = await readSSEEvents(rejoined);

    const log = await server.runner.events(task.id, { after: Number(lastId) });
    expect(after.map((event) => Number(event.id))).toEqual(log.map((entry) => entry.seq));
    expect(after[0]?.id).toBe(String(Number(lastId) + 1));
    expect(after.map((event) => event.event)).toEqual(log.map((entry) => entry.event.type));
    expect(after.map((event) => JSON.parse(event.data))).toEqual(log.map((entry) => entry.event));
    expect(after.at(-1)?.event).toBe('status-update');
    expect(JSON.parse(after.at(-1)?.data ?? '').status).toBe('completed');
    // Both streams together: the snapshot, then every event of the log after it, once each.
    const snapshot = JSON.parse(before[0]?.data ?? '').task as Task;
    const whole = await server.runner.events(task.id, { after: snapshot.seq });
    expect([...before.slice(1), ...after].map((event) => Number(event.id))).toEqual(
      whole.map((entry) => entry.seq),
    );
  });

  it('answers the events after it and ends, for a finished task', async () => {
    const server = createA2AHttpServer({ agent: createEchoAgent() });
    const { url } = await served(server);
    const task = await createTask(url, 'one two');
    const done = await server.runner.wait(task.id);
    const { path, headers } = resume('2');
    const after = await readSSEEvents(
      await fetch(`${url}/tasks/${task.id}/events${path}`, { headers }),
    );
    expect(after.map((event) => Number(event.id))).toEqual(
      Array.from({ length: done.seq - 2 }, (_, index) => index + 3),
    );
    const none = resume(String(done.seq));
    const empty = await fetch(`${url}/tasks/${task.id}/events${none.path}`, {
      headers: none.headers,
    });
    expect(empty.status).toBe(200);
    expect(await readSSEEvents(empty)).toEqual([]);
  });

  it.each(['abc', '-1', '1.5', ''])('answers 400 invalid_input for %j', async (id) => {
    const server = createA2AHttpServer({ agent: createEchoAgent() });
    const { url } = await served(server);
    const task = await createTask(url, 'x');
    const { path, headers } = resume(id);
    // An empty header is no header: fetch does not send it, so only the query form is asked.
    if (id === '' && path === '') return;
    const response = await fetch(`${url}/tasks/${task.id}/events${path}`, { headers });
    expect(await errorOf(response)).toEqual({ status: 400, code: 'invalid_input' });
  });

  it('answers 400 events_ahead for an id beyond the last event of the task', async () => {
    const server = createA2AHttpServer({ agent: createEchoAgent() });
    const { url } = await served(server);
    const task = await createTask(url, 'x');
    const done = await server.runner.wait(task.id);
    const { path, headers } = resume(String(done.seq + 1));
    const response = await fetch(`${url}/tasks/${task.id}/events${path}`, { headers });
    expect(await errorOf(response)).toEqual({ status: 400, code: 'events_ahead' });
  });

  it('answers 410 events_expired when retention dropped the events asked for', async () => {
    const store = createMemoryTaskStore({ maxEventsPerTask: 3 });
    const server = createA2AHttpServer({ agent: createTickerAgent(), store });
    const { url } = await served(server);
    const task = await createTask(url, '5 every 1ms');
    await server.runner.wait(task.id);
    const { path, headers } = resume('1');
    const response = await fetch(`${url}/tasks/${task.id}/events${path}`, { headers });
    expect(await errorOf(response)).toEqual({ status: 410, code: 'events_expired' });
  });

  it("answers 404 for an unknown task and for another agent's task in a shared store", async () => {
    const store = createMemoryTaskStore();
    const echo = await served(createA2AHttpServer({ agent: createEchoAgent(), store }));
    const ticker = await served(createA2AHttpServer({ agent: createTickerAgent(), store }));
    const task = await createTask(echo.url, 'x');
    const { path, headers } = resume('1');
    for (const target of [`${ticker.url}/tasks/${task.id}`, `${echo.url}/tasks/unknown`]) {
      const response = await fetch(`${target}/events${path}`, { headers });
      expect(await errorOf(response)).toEqual({ status: 404, code: 'task_not_found' });
    }
  });
});

describe('GET /tasks/{id}/events for a reader behind the retention of the log', () => {
  it('sends the task as it is again once the events the reader had not taken are dropped', async () => {
    const store = createMemoryTaskStore({ maxEventsPerTask: 50 });
    const server = createA2AHttpServer({ agent: createEchoAgent(), store });
    servers.push(server);
    const input = 'ab '.repeat(20_000);
    const created = await postJson(server.app, '/tasks', { input });
    const { task } = (await created.json()) as { task: Task };
    // In memory, the stream waits for its reader once 64 KiB are written: the reader takes
    // nothing until the task is done, 20,000 events on, far past the 50 the store keeps.
    const response = await server.app.request(`/tasks/${task.id}/events`);
    await server.runner.wait(task.id);
    const events = await readSSEEvents(response);
    let last = 0;
    for (const event of events) {
      // Ids only grow: what the reader had is never sent twice.
      expect(Number(event.id)).toBeGreaterThan(last);
      last = Number(event.id);
    }
    const { output, status } = foldTaskEvents(events);
    const snapshots = events.filter((event) => event.event === 'task');
    expect(snapshots.length).toBeGreaterThan(1);
    expect(output === input).toBe(true);
    expect(status).toBe('completed');
  });
});

describe('GET /tasks/{id}/events when retention outruns every read of the log', () => {
  it('writes its new task snapshots at the pace of the reader, which ends with the whole task', async () => {
    // Each read of the log waits a few milliseconds, in which the agent appends more than the
    // store keeps: every read finds its events dropped, and the route sends the task instead.
    const memory = createMemoryTaskStore({ maxEventsPerTask: 50 });
    const store: TaskStore = Object.assign(Object.create(memory) as TaskStore, {
      async events(...args: Parameters<TaskStore['events']>) {
        await new Promise((resolve) => setTimeout(resolve, 3));
        return memory.events(...args);
      },
    });
    const chunk = 'x'.repeat(1_000);
    const bursts = 40;
    const agent = defineAgent({
      name: 'bursts',
      description: 'Writes 100 KB at a time',
      async *run() {
        for (let burst = 0; burst < bursts; burst += 1) {
          for (let index = 0; index < 100; index += 1) yield { type: 'text-delta', delta: chunk };
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      },
    });
    const server = createA2AHttpServer({ agent, store });
    servers.push(server);
    const created = await postJson(server.app, '/tasks', { input: 'go' });
    const { task } = (await created.json()) as { task: Task };
    const response = await server.app.request(`/tasks/${task.id}/events`);
    // The reader takes nothing until the task is done: the snapshots, 4 MB in all written
    // back to back, would pass the writer's 1 MiB cap on a slow reader.
    await server.runner.wait(task.id);
    const events = await readSSEEvents(response);
    expect(events.filter((event) => event.event === 'error')).toEqual([]);
    const { output, status } = foldTaskEvents(events);
    expect(events.filter((event) => event.event === 'task').length).toBeGreaterThan(1);
    expect(output.length).toBe(bursts * 100 * chunk.length);
    expect(status).toBe('completed');
  });
});
