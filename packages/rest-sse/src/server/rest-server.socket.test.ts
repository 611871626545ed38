import { Agent, request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import {
  createWaitingAgent,
  eventsOf,
  parseSSE,
  readAnswer,
  readSSE,
  servedPerTest,
  uploadUntilClosed,
} from '@agentport/http/testing';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { describe, expect, it } from 'vitest';
import { createRestServer } from './rest-server.ts';

const start = servedPerTest();

const json = { 'content-type': 'application/json' };

/** POSTs JSON to `path` exactly as written (a URL string would have its dot segments resolved). */
function postAsWritten(url: string, path: string, body: unknown) {
  const { hostname, port } = new URL(url);
  return new Promise<{ status: number | undefined; text: string }>((resolve, reject) => {
    const sent = httpRequest({ hostname, port, path, method: 'POST', headers: json });
    sent.on('response', (answer) => {
      readAnswer(answer).then(({ response, text }) => {
        resolve({ status: response.statusCode, text });
      }, reject);
    });
    sent.on('error', reject);
    sent.end(JSON.stringify(body));
  });
}

describe('over a real socket', () => {
  it('invokes an agent', async () => {
    const url = await start(createRestServer().register('echo', createEchoAgent()));
    const response = await fetch(`${url}/echo/invoke`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: 'over the wire' }),
    });
    expect(await response.json()).toMatchObject({ result: 'over the wire', status: 'completed' });
  });

  it('answers 404 not_found for a dot segment, which URL parsing would resolve to another agent', async () => {
    const url = await start(
      createRestServer()
        .register('echo', createEchoAgent())
        .register('team/echo', createEchoAgent()),
    );
    for (const path of [
      '/team/echo/../../echo/invoke',
      '/team/%2e%2e/echo/invoke',
      '/team/.%2E/echo/stream',
      '/./echo/invoke',
      '/echo/%2e/invoke',
      // URL parsing ends a path at `#` too: `/echo/invoke/x/..#` resolves to `/echo/invoke/`.
      '/echo/invoke/x/..#',
    ]) {
      const answer = await postAsWritten(url, path, { input: 'x' });
      expect(answer.status, path).toBe(404);
      expect(JSON.parse(answer.text), path).toEqual({
        error: { code: 'not_found', message: `No route for ${path.replace(/#.*/, '')}` },
      });
    }
    // Every route: `/echo/..` would be the listing.
    const { hostname, port } = new URL(url);
    const listing = await new Promise<number | undefined>((resolve, reject) => {
      const sent = httpRequest({ hostname, port, path: '/echo/%2E%2E' });
      sent.on('response', (answer) => {
        answer.resume();
        resolve(answer.statusCode);
      });
      sent.on('error', reject);
      sent.end();
    });
    expect(listing).toBe(404);
    // An empty segment is no name either.
    const empty = await postAsWritten(url, '//echo/invoke', { input: 'x' });
    expect(empty.status).toBe(404);
    expect(JSON.parse(empty.text)).toEqual({
      error: { code: 'not_found', message: 'No route for //echo/invoke' },
    });
    const plain = await postAsWritten(url, '/team/echo/invoke', { input: 'x' });
    expect(JSON.parse(plain.text)).toMatchObject({ result: 'x', status: 'completed' });
  });

  it('delivers the first event while the agent is still running', async () => {
    const url = await start(createRestServer().register('ticker', createTickerAgent()));
    const started = performance.now();
    const response = await fetch(`${url}/ticker/stream`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: '3 every 300ms' }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    const chunks: string[] = [];
    let firstEventAt = 0;
    while (true) {
      const { value, done } = (await reader?.read()) ?? { done: true, value: undefined };
      if (done) break;
      chunks.push(value);
      if (firstEventAt === 0 && parseSSE(chunks).events.length > 0) {
        firstEventAt = performance.now() - started;
      }
    }
    const finishedAt = performance.now() - started;
    // The ticker takes at least 600 ms; its first tick arrives long before that.
    expect(firstEventAt).toBeLessThan(250);
    expect(finishedAt).toBeGreaterThanOrEqual(590);
    const events = eventsOf(parseSSE(chunks));
    expect(events.map((event) => event.event)).toEqual([
      'text-delta',
      'text-delta',
      'text-delta',
      'done',
    ]);
    expect(events.at(-1)?.data).toEqual({ output: 'tick 1\ntick 2\ntick 3' });
  });

  it("aborts the agent's signal when the caller aborts a stream", async () => {
    const { agent, aborted } = createWaitingAgent();
    const url = await start(createRestServer().register('waiter', agent));
    const controller = new AbortController();
    const response = await fetch(`${url}/waiter/stream`, {
      method: 'POST',
      headers: json,
      body: '{"input":"x"}',
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    expect(new TextDecoder().decode((await reader?.read())?.value)).toContain('started');
    controller.abort();
    await aborted;
  });

  it("stops the agent on disconnect without reading the request's signal (no AbortController per stream)", async () => {
    const { agent, aborted } = createWaitingAgent();
    const rest = createRestServer().register('waiter', agent);
    let signalRead = false;
    const gateway = new Hono().use(async (context, next) => {
      const raw = context.req.raw;
      const prototype = Object.getPrototypeOf(raw) as object;
      const original = Object.getOwnPropertyDescriptor(prototype, 'signal')?.get;
      Object.defineProperty(raw, 'signal', {
        get() {
          signalRead = true;
          return original?.call(raw);
        },
      });
      await next();
    });
    gateway.route('/', rest.app);
    const url = await start(gateway);
    const controller = new AbortController();
    const response = await fetch(`${url}/waiter/stream`, {
      method: 'POST',
      headers: json,
      body: '{"input":"x"}',
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    expect(new TextDecoder().decode((await reader?.read())?.value)).toContain('started');
    controller.abort();
    await aborted;
    expect(signalRead).toBe(false);
  });

  it("aborts the agent's signal when the caller's connection closes during an invoke", async () => {
    const { agent, aborted, started } = createWaitingAgent();
    const url = await start(createRestServer().register('waiter', agent));
    const controller = new AbortController();
    const pending = fetch(`${url}/waiter/invoke`, {
      method: 'POST',
      headers: json,
      body: '{"input":"x"}',
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await expect.poll(started).toBe(1);
    controller.abort();
    await aborted;
    expect(await pending).toBeInstanceOf(Error);
  });

  it('writes heartbeats on an idle stream and stops them when it ends', async () => {
    const url = await start(
      createRestServer({ heartbeatMs: 40 }).register('ticker', createTickerAgent()),
    );
    const response = await fetch(`${url}/ticker/stream`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: '2 every 200ms' }),
    });
    const parsed = await readSSE(response);
    expect(parsed.comments.length).toBeGreaterThanOrEqual(2);
    expect(parsed.comments.every((comment) => comment === 'heartbeat')).toBe(true);
    expect(parsed.events.map((event) => event.event)).toEqual(['text-delta', 'text-delta', 'done']);
  });

  it('keeps headers set by middleware in front of a stream (CORS)', async () => {
    const rest = createRestServer().register('ticker', createTickerAgent());
    const gateway = new Hono().use(cors({ origin: 'https://app.example' }));
    gateway.route('/agents', rest.app);
    const url = await start(gateway);
    const response = await fetch(`${url}/agents/ticker/stream`, {
      method: 'POST',
      headers: { ...json, origin: 'https://app.example' },
      body: '{"input":"3 every 50ms"}',
    });
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await response.text();
    expect(text).not.toContain('Error');
    const events = eventsOf(parseSSE(text));
    expect(events.at(-1)).toEqual({
      event: 'done',
      data: { output: 'tick 1\ntick 2\ntick 3' },
    });
  });

  it('streams the same events through the web-stream path when direct streaming is off', async () => {
    const url = await start(
      createRestServer({ directNodeStreaming: false }).register('echo', createEchoAgent()),
    );
    const response = await fetch(`${url}/echo/stream`, {
      method: 'POST',
      headers: json,
      body: '{"input":"a b"}',
    });
    const events = eventsOf(await readSSE(response));
    expect(events.map((event) => event.event)).toEqual(['text-delta', 'text-delta', 'done']);
  });
});

describe('request bodies over a real socket', () => {
  it.each([
    ['iso-8859-1', Buffer.from('{"input":"caf\xe9"}', 'latin1')],
    ['utf-16', Buffer.from('{"input":"café"}', 'utf16le')],
  ])(
    'refuses a JSON body in %s with 415 rather than reading it as UTF-8',
    async (charset, body) => {
      const url = await start(createRestServer().register('echo', createEchoAgent()));
      for (const action of ['invoke', 'stream']) {
        const response = await fetch(`${url}/echo/${action}`, {
          method: 'POST',
          headers: { 'content-type': `application/json; charset=${charset}` },
          body,
        });
        expect(response.status).toBe(415);
        expect(await response.json()).toEqual({
          error: {
            code: 'unsupported_media_type',
            message: `JSON is taken in UTF-8 only, got charset ${charset}`,
          },
        });
      }
    },
  );

  it('refuses a body that is not UTF-8 with 400, on the Node path and the Hono route', async () => {
    const url = await start(createRestServer().register('echo', createEchoAgent()));
    // 0xff 0xfe are never UTF-8; decoded anyway they would reach the agent as U+FFFD.
    const body = Buffer.concat([
      Buffer.from('{"input":"a'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('b"}'),
    ]);
    for (const action of ['invoke', 'stream']) {
      for (const chunked of [false, true]) {
        const answer = await new Promise<{ response: { statusCode?: number }; text: string }>(
          (resolve, reject) => {
            const sent = httpRequest(`${url}/echo/${action}`, {
              method: 'POST',
              headers: {
                ...json,
                ...(chunked
                  ? { 'transfer-encoding': 'chunked' }
                  : { 'content-length': body.length }),
              },
            });
            sent.on('response', (response) => void readAnswer(response).then(resolve, reject));
            sent.on('error', reject);
            sent.end(body);
          },
        );
        expect(answer.response.statusCode, `${action} chunked=${chunked}`).toBe(400);
        expect(JSON.parse(answer.text)).toEqual({
          error: { code: 'invalid_json', message: 'Request body is not valid UTF-8' },
        });
      }
    }
    const fine = await fetch(`${url}/echo/invoke`, {
      method: 'POST',
      headers: json,
      body: Buffer.from('\ufeff{"input":"café ✓"}'),
    });
    expect(await fine.json()).toMatchObject({ result: 'café ✓', status: 'completed' });
  });

  it('refuses a compressed body with 415, which it does not decode', async () => {
    const url = await start(createRestServer().register('echo', createEchoAgent()));
    const body = gzipSync('{"input":"x"}');
    for (const action of ['invoke', 'stream']) {
      const response = await fetch(`${url}/echo/${action}`, {
        method: 'POST',
        headers: { ...json, 'content-encoding': 'gzip' },
        body,
      });
      expect(response.status).toBe(415);
      expect(await response.json()).toEqual({
        error: {
          code: 'unsupported_media_type',
          message: 'Content-Encoding gzip is not supported: send the body uncompressed',
        },
      });
    }
    const identity = await fetch(`${url}/echo/invoke`, {
      method: 'POST',
      headers: { ...json, 'content-encoding': 'identity' },
      body: '{"input":"plain"}',
    });
    expect(await identity.json()).toMatchObject({ result: 'plain', status: 'completed' });
  });

  it('answers a declared length over the limit 413 with Connection: close and ends the connection at once, on both actions', async () => {
    const url = await start(
      createRestServer({ maxBodyBytes: 100 }).register('echo', createEchoAgent()),
    );
    const port = Number(new URL(url).port);
    for (const action of ['invoke', 'stream']) {
      const refused = await uploadUntilClosed(
        port,
        `POST /echo/${action} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
          'Content-Length: 50000000\r\n\r\n',
      );
      expect(refused.head, action).toMatch(/^http\/1\.1 413 /);
      expect(refused.head, action).toMatch(/\r\nconnection: close(\r\n|$)/);
      // Not after reading the upload for a while (@hono/node-server drains one for 500 ms).
      expect(refused.closedMs - refused.answeredMs, action).toBeLessThan(250);
    }
  });

  it('closes the connection of a 413 for a chunked body, so the next request takes a new one', async () => {
    const url = await start(
      createRestServer({ maxBodyBytes: 100 }).register('echo', createEchoAgent()),
    );
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (body: string, chunked: boolean) =>
      new Promise<{ status: number; connection: string | undefined; text: string }>(
        (resolve, reject) => {
          const headers: Record<string, string | number> = json;
          const sent = httpRequest(`${url}/echo/invoke`, {
            method: 'POST',
            agent,
            headers: chunked ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
          });
          sent.on('response', (answer) => {
            readAnswer(answer).then(({ response, text }) => {
              const { connection } = response.headers;
              resolve({ status: response.statusCode ?? 0, connection, text });
            }, reject);
          });
          sent.on('error', reject);
          if (chunked) sent.write(body.slice(0, 10));
          sent.end(chunked ? body.slice(10) : body);
        },
      );
    try {
      // Far over the limit, so that most of it is still unread when the 413 goes out.
      const refused = await send(JSON.stringify({ input: 'x'.repeat(2_000_000) }), true);
      expect(refused.status).toBe(413);
      expect(refused.connection).toBe('close');
      const next = await send(JSON.stringify({ input: 'next' }), false);
      expect(next).toMatchObject({
        status: 200,
        text: expect.stringContaining('{"result":"next","contextId":'),
      });
    } finally {
      agent.destroy();
    }
  });
});

describe('close', () => {
  it('ends open streams with shutting_down, aborts their agents and refuses new calls with 503', async () => {
    const rest = createRestServer().register('ticker', createTickerAgent());
    const url = await start(rest);
    const response = await fetch(`${url}/ticker/stream`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: '100 every 50ms' }),
    });
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    const first = await reader?.read();
    expect(first?.value).toContain('tick 1');
    rest.close();
    let remainder = '';
    while (true) {
      const chunk = await reader?.read();
      if (chunk === undefined || chunk.done) break;
      remainder += chunk.value;
    }
    const parsed = parseSSE(`${first?.value ?? ''}${remainder}`);
    const events = eventsOf(parsed);
    expect(events.at(-1)).toEqual({
      event: 'error',
      data: { code: 'shutting_down', message: 'The server is shutting down' },
    });
    // The final event goes on with the stream's ids (the task log's, from 3).
    expect(parsed.events.map((event) => event.id)).toEqual(
      parsed.events.map((_, index) => String(index + 3)),
    );
    expect(events.filter((event) => event.event === 'text-delta').length).toBeLessThan(5);
    const refused = await fetch(`${url}/ticker/invoke`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: '1' }),
    });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: { code: 'shutting_down' } });
  });
});
