import { createMemoryTaskStore, defineAgent, type TaskStore } from '@agentport/core';
import { createTickerAgent } from '@agentport/core/agents';
import {
  dropAndRejoin,
  REJOIN_REFUSALS,
  readSSE,
  readSSEEvents,
  rejoinRefusals,
  sentSeqs,
  servedPerTest,
} from '@agentport/http/testing';
import { describe, expect, it, vi } from 'vitest';
import { createRestServer, type RestServerOptions } from './rest-server.ts';

const start = servedPerTest();
const json = { 'content-type': 'application/json' };
const LOCATION = /^\/demo\/ticker\/tasks\/([0-9a-f-]{36})\/stream$/;

/** A REST server with the ticker as `demo/ticker` over real HTTP. */
function serveTicker(store: TaskStore, options: RestServerOptions = {}): Promise<string> {
  return start(
    createRestServer({ store, ...options }).register('demo/ticker', createTickerAgent()),
  );
}

function post(url: string, input: string, path = '/demo/ticker/stream'): Promise<Response> {
  return fetch(`${url}${path}`, { method: 'POST', headers: json, body: JSON.stringify({ input }) });
}

/** The id a stream's Content-Location names. */
function taskIdOf(response: Response): string {
  const location = response.headers.get('content-location') ?? '';
  expect(location).toMatch(LOCATION);
  return LOCATION.exec(location)?.[1] as string;
}

describe.each([
  ['the Node fast path', true],
  ['Hono over a web stream', false],
])('POST /{name}/stream as a task, on %s', (_, direct) => {
  const options = { directNodeStreaming: direct };

  it("numbers every event by its task's log and names where it is rejoined", async () => {
    const store = createMemoryTaskStore();
    const url = await serveTicker(store, options);
    const response = await post(url, '3 every 5ms');
    const id = taskIdOf(response);
    const streamed = (await readSSE(response)).events;
    expect(streamed.map((event) => event.event)).toEqual([
      'text-delta',
      'text-delta',
      'text-delta',
      'done',
    ]);
    const log = await store.events(id);
    expect(streamed.map((event) => Number(event.id))).toEqual(sentSeqs(log));
    expect(await store.get(id)).toMatchObject({
      agentName: 'ticker',
      status: 'completed',
      output: 'tick 1\ntick 2\ntick 3',
    });
  });

  it('continues a dropped stream at N+1 when rejoined with Last-Event-ID: N, to its done', async () => {
    const store = createMemoryTaskStore();
    const url = await serveTicker(store, options);
    const response = await post(url, '6 every 30ms');
    const { before, status, after } = await dropAndRejoin(url, response, 2);
    expect(status).toBe(200);
    expect(Number(after[0]?.id)).toBe(Number(before.at(-1)?.id) + 1);
    expect(after.at(-1)).toMatchObject({ event: 'done' });
    expect(JSON.parse(after.at(-1)?.data ?? '')).toEqual({
      output: 'tick 1\ntick 2\ntick 3\ntick 4\ntick 5\ntick 6',
    });
    // Both parts together are the whole run: no gap, nothing twice.
    const whole = sentSeqs(await store.events(taskIdOf(response)));
    expect([...before, ...after].map((event) => Number(event.id))).toEqual(whole);
    const deltas = [...before, ...after].filter((event) => event.event === 'text-delta');
    expect(deltas.map((event) => JSON.parse(event.data).delta)).toEqual([
      'tick 1',
      '\ntick 2',
      '\ntick 3',
      '\ntick 4',
      '\ntick 5',
      '\ntick 6',
    ]);
  });
});

describe('a stream whose reader leaves', () => {
  it('goes on for the grace, then is canceled and its agent aborted when nobody rejoined', async () => {
    let aborted: AbortSignal | undefined;
    const waiting = defineAgent({
      name: 'waiting',
      async *run(_input, { signal }) {
        aborted = signal;
        yield { type: 'text-delta', delta: 'started' };
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
      },
    });
    const store = createMemoryTaskStore();
    const server = createRestServer({ store, rejoinGraceMs: 300 }).register('waiting', waiting);
    const url = await start(server);
    const response = await post(url, 'x', '/waiting/stream');
    const id = /tasks\/([^/]+)\/stream$/.exec(response.headers.get('content-location') ?? '')?.[1];
    await readSSEEvents(response, 1);
    // Within the grace the run goes on.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await store.get(id as string))?.status).toBe('working');
    expect(aborted?.aborted).toBe(false);
    await vi.waitFor(async () => expect((await store.get(id as string))?.status).toBe('canceled'));
    expect(aborted?.aborted).toBe(true);
  });

  it('is not canceled while a rejoined reader reads it, past the grace', async () => {
    const store = createMemoryTaskStore();
    const url = await serveTicker(store, { rejoinGraceMs: 20 });
    const response = await post(url, '5 every 40ms');
    const location = response.headers.get('content-location') as string;
    const before = await readSSEEvents(response, 1);
    const rejoined = await fetch(`${url}${location}?lastEventId=${before[0]?.id}`);
    const after = (await readSSE(rejoined)).events;
    expect(after.map((event) => event.event)).toEqual([
      'text-delta',
      'text-delta',
      'text-delta',
      'text-delta',
      'done',
    ]);
  });

  it('is canceled at once on shutdown, after its shutting_down event', async () => {
    const store = createMemoryTaskStore();
    const server = createRestServer({ store }).register('demo/ticker', createTickerAgent());
    const url = await start(server);
    const response = await post(url, '100 every 20ms');
    const id = taskIdOf(response);
    const reading = readSSE(response);
    await vi.waitFor(async () => expect((await store.get(id))?.output).toBeDefined());
    server.close();
    expect((await reading).events.at(-1)?.data).toContain('shutting_down');
    await vi.waitFor(async () => expect((await store.get(id))?.status).toBe('canceled'));
  });
});

describe('GET /{name}/tasks/{id}/stream', () => {
  it('replays a finished run from its start without Last-Event-ID', async () => {
    const url = await serveTicker(createMemoryTaskStore());
    const response = await post(url, '3 every 1ms');
    const location = response.headers.get('content-location') as string;
    const whole = (await readSSE(response)).events;
    expect((await readSSE(await fetch(`${url}${location}`))).events).toEqual(whole);
    const after = await fetch(`${url}${location}`, {
      headers: { 'last-event-id': whole[0]?.id ?? '' },
    });
    expect((await readSSE(after)).events).toEqual(whole.slice(1));
  });

  it('answers 400, 404 and 410 as JSON before any stream, as a2a-http task events do', async () => {
    const url = await serveTicker(createMemoryTaskStore({ maxEventsPerTask: 3 }));
    const response = await post(url, '4 every 1ms');
    const location = response.headers.get('content-location') as string;
    await response.text();
    expect(await rejoinRefusals(url, location, '/demo/ticker/tasks/nobody/stream')).toEqual(
      REJOIN_REFUSALS,
    );
  });

  it("answers 404 for another agent's task", async () => {
    const store = createMemoryTaskStore();
    const server = createRestServer({ store })
      .register('demo/ticker', createTickerAgent())
      .register('other', createTickerAgent('other'));
    const url = await start(server);
    const response = await post(url, '1 every 1ms');
    const id = taskIdOf(response);
    await response.text();
    const answer = await fetch(`${url}/other/tasks/${id}/stream`);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({ error: { code: 'task_not_found' } });
  });
});

describe('a stream run kept apart', () => {
  it("keeps a finished run's task for streamRetentionMs, the store's other tasks for its own TTL", async () => {
    let clock = Date.UTC(2026, 0, 1);
    const store = createMemoryTaskStore({ ttlMs: 60_000, now: () => clock });
    const server = createRestServer({ store, streamRetentionMs: 1_000 }).register(
      'ticker',
      createTickerAgent(),
    );
    const answer = await server.app.request('/ticker/stream', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: '2 every 1ms' }),
    });
    await answer.text();
    const id = (answer.headers.get('content-location') ?? '').split('/').at(-2) ?? '';
    await store.create({ id: 'a2a-task', agentName: 'ticker', input: 'x', metadata: {} });
    await store.update('a2a-task', { status: 'canceled' }, { expectedStatus: 'submitted' });
    await vi.waitFor(async () => expect((await store.get(id))?.status).toBe('completed'));
    clock += 1_001;
    await expect(store.get(id)).resolves.toBeUndefined();
    await expect(store.get('a2a-task')).resolves.toMatchObject({ status: 'canceled' });
  });
});
