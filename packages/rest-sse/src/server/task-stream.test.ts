import { createMemoryTaskStore, type TaskStore } from '@agentport/core';
import { createTickerAgent } from '@agentport/core/agents';
import { readSSE, serve, type TestServer } from '@agentport/http/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createRestServer } from './rest-server.ts';

const servers: TestServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const json = { 'content-type': 'application/json' };

/** A REST server with the ticker over real HTTP (the Node fast path with `direct`). */
async function start(store: TaskStore, direct = true): Promise<string> {
  const server = createRestServer({ store, directNodeStreaming: direct }).register(
    'demo/ticker',
    createTickerAgent(),
  );
  const running = await serve((options) => server.listen(options));
  servers.push(running);
  return running.url;
}

function post(url: string, input: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${url}/demo/ticker/stream`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ input }),
    ...(signal === undefined ? {} : { signal }),
  });
}

/** Reads a stream until `count` events have come; their frames, and the reader to cancel. */
async function readEvents(response: Response, count: number) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  while ((text.match(/\n\n/g) ?? []).length < count) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  return { text, reader };
}

describe.each([true, false])('a REST stream as a task (direct %s)', (direct) => {
  it("numbers its events by the task's log and is rejoined at its Content-Location", async () => {
    const store = createMemoryTaskStore();
    const url = await start(store, direct);
    const whole = await readSSE(await post(url, '4 every 20ms'));
    const ids = whole.events.map((event) => Number(event.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(whole.events.at(-1)?.event).toBe('done');

    const streamed = await post(url, '4 every 20ms');
    const location = streamed.headers.get('content-location') as string;
    expect(location).toMatch(/^\/demo\/ticker\/tasks\/[0-9a-f-]{36}\/events$/);
    const seen = await readEvents(streamed, 2);
    await seen.reader.cancel();
    const lastSeen = (await readSSE(new Response(seen.text))).events.at(-1)?.id as string;
    const rejoined = await fetch(`${url}${location}`, { headers: { 'last-event-id': lastSeen } });
    expect(rejoined.status).toBe(200);
    const rest = await readSSE(rejoined);
    // The first stream going away canceled the run: the rejoined one ends with that.
    const after = rest.events.map((event) => Number(event.id));
    expect(after[0]).toBeGreaterThan(Number(lastSeen));
    expect(rest.events.at(-1)?.event).toBe('error');
    expect(JSON.parse(rest.events.at(-1)?.data ?? '')).toMatchObject({ code: 'canceled' });
  });

  it('cancels the task when the caller goes away', async () => {
    const store = createMemoryTaskStore();
    const url = await start(store, direct);
    const controller = new AbortController();
    const streamed = await post(url, '100 every 20ms', controller.signal);
    await readEvents(streamed, 1);
    controller.abort();
    let status = '';
    for (let tries = 0; tries < 100 && status !== 'canceled'; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      status = (await store.list({})).tasks[0]?.status ?? '';
    }
    expect(status).toBe('canceled');
  });
});

describe('GET /{name}/tasks/{id}/events', () => {
  it('replays a finished run after Last-Event-ID with no gap and no duplicate', async () => {
    const url = await start(createMemoryTaskStore());
    const streamed = await post(url, '3 every 1ms');
    const location = streamed.headers.get('content-location') as string;
    const whole = (await readSSE(streamed)).events;
    const first = whole[0]?.id as string;
    const rejoined = await readSSE(
      await fetch(`${url}${location}?lastEventId=${encodeURIComponent(first)}`),
    );
    expect(rejoined.events).toEqual(whole.slice(1));
    const fromStart = await readSSE(await fetch(`${url}${location}`));
    expect(fromStart.events).toEqual(whole);
  });

  it('answers 404, 400 and 400 events_ahead before starting a stream', async () => {
    const url = await start(createMemoryTaskStore());
    const streamed = await post(url, '1 every 1ms');
    const location = streamed.headers.get('content-location') as string;
    await streamed.text();
    const missing = await fetch(`${url}/demo/ticker/tasks/nobody/events`);
    expect(missing.status).toBe(404);
    const invalid = await fetch(`${url}${location}`, { headers: { 'last-event-id': 'x' } });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: { code: 'invalid_input' } });
    const ahead = await fetch(`${url}${location}`, { headers: { 'last-event-id': '999' } });
    expect(ahead.status).toBe(400);
    expect(await ahead.json()).toMatchObject({ error: { code: 'events_ahead' } });
  });
});
