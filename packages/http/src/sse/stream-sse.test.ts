import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type TestServer } from '../testing/serve.ts';
import { parseSSE, readSSE } from '../testing/sse.ts';
import { SSE_HEADERS } from './sse-target.ts';
import type { SSEWriter } from './sse-writer.ts';
import { streamSSE } from './stream-sse.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function createApp(run: (writer: SSEWriter) => Promise<void> | void) {
  const app = new Hono();
  app.use(cors());
  app.get('/events', (context) => streamSSE(context, run, { headers: { 'x-stream': 'yes' } }));
  return app;
}

async function ticks(writer: SSEWriter) {
  for (let id = 1; id <= 3; id += 1) {
    writer.write({ event: 'tick', data: String(id), id });
    await pause(30);
  }
}

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(app: Hono): Promise<string> {
  const running = await serve(app);
  servers.push(running);
  return running.url;
}

describe('streamSSE in memory (web stream)', () => {
  it('answers with the SSE headers, extra headers and the events written', async () => {
    const response = await createApp(ticks).request('/events');
    expect(response.status).toBe(200);
    for (const [name, value] of Object.entries(SSE_HEADERS)) {
      expect(response.headers.get(name)).toBe(value);
    }
    expect(response.headers.get('x-stream')).toBe('yes');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const parsed = await readSSE(response);
    expect(parsed.events.map((event) => event.data)).toEqual(['1', '2', '3']);
  });

  it('writes an error event when run throws, then ends', async () => {
    const app = createApp((writer) => {
      writer.write({ data: 'before' });
      throw new Error('hidden detail');
    });
    const parsed = await readSSE(await app.request('/events'));
    expect(parsed.events.map((event) => event.event)).toEqual([undefined, 'error']);
    expect(JSON.parse(parsed.events[1]?.data ?? '')).toEqual({
      code: 'internal_error',
      message: 'Internal error',
    });
  });

  it('answers HEAD with the headers and does not run the stream', async () => {
    let runs = 0;
    const app = createApp(() => {
      runs += 1;
    });
    const response = await app.request('/events', { method: 'HEAD' });
    expect(response.headers.get('content-type')).toBe(SSE_HEADERS['content-type']);
    expect(await response.text()).toBe('');
    expect(runs).toBe(0);
  });
});

describe('streamSSE on Node (direct to the socket)', () => {
  it('streams every event of a slow stream behind middleware that touched the response', async () => {
    const url = await start(createApp(ticks));
    const response = await fetch(`${url}/events`, { headers: { origin: 'https://x.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('x-stream')).toBe('yes');
    expect(response.headers.get('content-type')).toBe(SSE_HEADERS['content-type']);
    const text = await response.text();
    expect(text).not.toContain('Error');
    expect(parseSSE(text).events.map((event) => event.id)).toEqual(['1', '2', '3']);
  });

  it('sends the headers at once, before a first event that takes a while', async () => {
    const url = await start(
      createApp(async (writer) => {
        await pause(400);
        writer.write({ data: 'late' });
      }),
    );
    const started = performance.now();
    const response = await fetch(`${url}/events`);
    expect(performance.now() - started).toBeLessThan(300);
    expect(parseSSE(await response.text()).events.map((event) => event.data)).toEqual(['late']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
  });

  it("aborts the writer's signal when the caller goes away", async () => {
    let aborted = false;
    const url = await start(
      createApp(async (writer) => {
        writer.write({ data: 'hello' });
        writer.signal.addEventListener('abort', () => {
          aborted = true;
        });
        await pause(5000);
      }),
    );
    const controller = new AbortController();
    const response = await fetch(`${url}/events`, { signal: controller.signal });
    const reader = response.body?.getReader();
    expect(new TextDecoder().decode((await reader?.read())?.value)).toBe('data: hello\n\n');
    expect(aborted).toBe(false);
    controller.abort();
    await expect.poll(() => aborted).toBe(true);
  });

  it('answers HEAD without running the stream', async () => {
    let runs = 0;
    const url = await start(
      createApp(() => {
        runs += 1;
      }),
    );
    const response = await fetch(`${url}/events`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(SSE_HEADERS['content-type']);
    expect(runs).toBe(0);
  });
});
