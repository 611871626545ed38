import { request as httpRequest, type IncomingMessage } from 'node:http';
import { listen } from '@agentport/http/node';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createBuiltinAgents } from './builtin-agents.ts';
import { createGateway, type Gateway, type GatewayOptions } from './gateway.ts';
import { completed } from './testing/invoke-answer.ts';
import { collectLines } from './testing/log-lines.ts';

const stops: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

interface Started {
  url: string;
  gateway: Gateway;
  /** What each `handleNode` call returned. */
  taken: boolean[];
}

/** Serves a gateway with `listen`, through its `handleNode` (counted) or through its app alone. */
async function start(options: Partial<GatewayOptions> = {}, viaNode = true): Promise<Started> {
  const gateway = createGateway({
    agents: createBuiltinAgents(),
    defaultAgent: 'assistant',
    publicUrl: 'http://127.0.0.1',
    ...options,
  });
  const taken: boolean[] = [];
  const controller = new AbortController();
  let url = '';
  const stopped = listen(gateway.app, {
    signal: controller.signal,
    shutdownTimeoutMs: 200,
    onListen: (address) => {
      url = address.url;
    },
    ...(viaNode
      ? {
          handleNode: (request, response) => {
            const result = gateway.handleNode(request, response);
            taken.push(result);
            return result;
          },
        }
      : {}),
  });
  while (url === '') await new Promise((resolve) => setTimeout(resolve, 5));
  stops.push(async () => {
    controller.abort();
    await stopped;
  });
  return { url, gateway, taken };
}

function invoke(url: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${url}/agents/echo/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

/** Ids and timestamps differ between two gateways; everything else must not. */
function mask(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>');
}

async function summary(response: Response) {
  return {
    status: response.status,
    contentType: response.headers.get('content-type')?.toLowerCase(),
    hasRequestId: response.headers.has('x-request-id'),
    // Ids (a new conversation's, say) differ from one answer to the next.
    body: JSON.parse(mask(await response.text())),
  };
}

describe('Gateway.handleNode', () => {
  it('answers invoke calls as the app does, with the request id', async () => {
    const fast = await start();
    const app = await start({}, false);
    for (const body of ['{"input":"hello"}', '{oops', '{"input":""}']) {
      const [viaNode, viaApp] = await Promise.all([invoke(fast.url, body), invoke(app.url, body)]);
      expect(await summary(viaNode)).toEqual(await summary(viaApp));
    }
    expect(fast.taken).toEqual([true, true, true]);
    const given = await invoke(fast.url, '{"input":"x"}', { 'x-request-id': 'trace-42' });
    expect(given.headers.get('x-request-id')).toBe('trace-42');
    const unsafe = await invoke(fast.url, '{"input":"x"}', { 'x-request-id': 'a b;c' });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers hand-rolled A2A creates, per agent and for the default agent, as the app does', async () => {
    const fast = await start();
    const app = await start({}, false);
    const create = async (url: string, path: string, body: string) => {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      return {
        status: response.status,
        location: mask(response.headers.get('location') ?? ''),
        hasRequestId: response.headers.has('x-request-id'),
        body: mask(await response.text()),
      };
    };
    const calls: Array<[string, string]> = [
      ['/agents/echo/tasks?wait=5', '{"input":"a b"}'],
      ['/tasks?wait=5', '{"input":"what is 2 + 2"}'],
      ['/agents/echo/tasks', '{"input":"later"}'],
      ['/agents/echo/tasks?wait=5', '{"input":'],
    ];
    for (const [path, body] of calls) {
      const [viaNode, viaApp] = await Promise.all([
        create(fast.url, path, body),
        create(app.url, path, body),
      ]);
      expect(viaNode).toEqual(viaApp);
    }
    const done = await create(fast.url, '/agents/echo/tasks?wait=5', '{"input":"a b"}');
    expect(done).toMatchObject({ status: 201, location: '/agents/echo/tasks/<id>' });
    expect(JSON.parse(done.body)).toMatchObject({ task: { status: 'completed', output: 'a b' } });
    const root = await create(fast.url, '/tasks?wait=5', '{"input":"what is 2 + 2"}');
    expect(JSON.parse(root.body)).toMatchObject({ task: { agentName: 'assistant' } });
    expect(fast.taken).toEqual([true, true, true, true, true, true]);
  });

  it("answers the official SDK surface's JSON-RPC calls as the app does, streams included", async () => {
    const fast = await start();
    const app = await start({}, false);
    const call = async (url: string, path: string, body: string) => {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body,
      });
      return {
        status: response.status,
        contentType: response.headers.get('content-type')?.toLowerCase(),
        hasRequestId: response.headers.has('x-request-id'),
        body: mask(await response.text()),
      };
    };
    const message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'one two' }] };
    const rpc = (method: string, params: unknown) =>
      JSON.stringify({ jsonrpc: '2.0', id: 7, method, params });
    const calls: Array<[string, string]> = [
      ['/a2a/echo/jsonrpc', rpc('SendMessage', { message })],
      ['/a2a/echo/jsonrpc', rpc('SendStreamingMessage', { message })],
      ['/a2a/echo/jsonrpc', rpc('GetTask', { id: 'nope' })],
      ['/a2a/echo/jsonrpc', rpc('NoSuchMethod', {})],
      ['/a2a/echo/jsonrpc', '{"jsonrpc":'],
      ['/a2a/nobody/jsonrpc', rpc('SendMessage', { message })],
      ['/a2a/echo/rest/message:send', JSON.stringify({ message })],
    ];
    for (const [path, body] of calls) {
      const [viaNode, viaApp] = await Promise.all([
        call(fast.url, path, body),
        call(app.url, path, body),
      ]);
      expect([path, viaNode]).toEqual([path, viaApp]);
      expect(viaNode.hasRequestId).toBe(true);
    }
    // The agents' JSON-RPC endpoints are taken here; unknown agents and other routes are the app's.
    expect(fast.taken).toEqual([true, true, true, true, true, false, false]);
    // A request no URL can be made of is answered as `listen` answers it, on both paths.
    const badHost = (url: string) =>
      new Promise<number>((resolve, reject) => {
        const { port } = new URL(url);
        const sent = httpRequest({
          host: '127.0.0.1',
          port,
          path: '/a2a/echo/jsonrpc',
          method: 'POST',
          headers: { host: 'a b', 'content-type': 'application/json' },
        });
        sent.on('response', (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        sent.on('error', reject);
        sent.end(rpc('SendMessage', { message }));
      });
    expect([await badHost(fast.url), await badHost(app.url)]).toEqual([400, 400]);
    const sent = await call(fast.url, '/a2a/echo/jsonrpc', rpc('SendMessage', { message }));
    expect(JSON.parse(sent.body)).toMatchObject({ id: 7, result: { task: { id: '<id>' } } });
  });

  it('leaves other routes to the app', async () => {
    const { url, taken } = await start();
    const health = await fetch(`${url}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const card = await fetch(`${url}/a2a/echo/.well-known/agent-card.json`);
    expect(await card.json()).toMatchObject({ name: 'echo' });
    // A query or a trailing slash on the JSON-RPC endpoint: the app's (same answer, its routing).
    const rpc = await fetch(`${url}/a2a/echo/jsonrpc/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
      }),
    });
    expect(await rpc.json()).toMatchObject({ jsonrpc: '2.0', id: 1 });
    expect(taken).toEqual([false, false, false]);
  });

  it('streams REST/SSE calls as the app does, with the request id in the head', async () => {
    const fast = await start();
    const app = await start({}, false);
    const stream = (url: string) =>
      fetch(`${url}/agents/echo/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'sse-1' },
        body: '{"input":"a b c"}',
      });
    const [viaNode, viaApp] = await Promise.all([stream(fast.url), stream(app.url)]);
    expect(viaNode.headers.get('x-request-id')).toBe('sse-1');
    expect(viaNode.headers.get('content-type')).toBe(viaApp.headers.get('content-type'));
    const text = await viaNode.text();
    expect(text).toBe(await viaApp.text());
    expect(text).toContain('event: done');
    expect(fast.taken).toEqual([true]);
  });

  it('checks API keys: a valid key is answered here, a missing or wrong one by the app (401)', async () => {
    const { url, taken } = await start({ apiKeys: ['key-0123456789abcdef'] });
    const missing = await invoke(url, '{"input":"x"}');
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toContain('Bearer');
    const wrong = await invoke(url, '{"input":"x"}', { 'x-api-key': 'wrong-key-0123456789' });
    expect(wrong.status).toBe(401);
    const byHeader = await invoke(url, '{"input":"x"}', { 'x-api-key': 'key-0123456789abcdef' });
    expect(await byHeader.json()).toEqual(completed('x'));
    const byBearer = await invoke(url, '{"input":"y"}', {
      authorization: 'Bearer key-0123456789abcdef',
    });
    expect(await byBearer.json()).toEqual(completed('y'));
    expect(taken).toEqual([false, false, true, true]);
  });

  it('reads two Authorization headers as the app does: joined, so no valid key (401)', async () => {
    const key = 'key-0123456789abcdef';
    const { url, taken } = await start({ apiKeys: [key] });
    const { port } = new URL(url);
    const statusWith = (authorizations: string[]) =>
      new Promise<number>((resolve, reject) => {
        const headers = [
          'host',
          `127.0.0.1:${port}`,
          'content-type',
          'application/json',
          'content-length',
          '13',
        ];
        for (const value of authorizations) headers.push('authorization', value);
        // A flat list keeps both headers on the wire (fetch would join them into one).
        const sent = httpRequest({
          host: '127.0.0.1',
          port,
          path: '/agents/echo/invoke',
          method: 'POST',
          headers,
        });
        sent.on('response', (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        sent.on('error', reject);
        sent.end('{"input":"x"}');
      });
    expect(await statusWith([`Bearer ${key}`, 'Bearer wrong-key-0123456789'])).toBe(401);
    expect(await statusWith([`Bearer ${key}`])).toBe(200);
    expect(taken).toEqual([false, true]);
  });

  it('leaves every call to the app when CORS is on, so the CORS headers are sent', async () => {
    const { url, taken } = await start({ cors: true });
    const response = await invoke(url, '{"input":"x"}', { origin: 'https://example.com' });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual(completed('x'));
    expect(taken).toEqual([false]);
  });

  it('writes the access log line the app writes', async () => {
    const { lines, destination } = collectLines();
    const { url, taken } = await start({ logger: pino({ base: undefined }, destination) });
    await (await invoke(url, '{"input":"x"}', { 'x-request-id': 'log-1' })).json();
    await (await invoke(url, '{bad', { 'x-request-id': 'log-2' })).json();
    await fetch(`${url}/agents/echo/tasks?wait=5`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'log-3' },
      body: '{"input":"x"}',
    }).then((response) => response.json());
    while (lines.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    const entries = lines.map((line) => JSON.parse(line));
    expect(entries).toMatchObject([
      { requestId: 'log-1', method: 'POST', path: '/agents/echo/invoke', status: 200 },
      { requestId: 'log-2', method: 'POST', path: '/agents/echo/invoke', status: 400 },
      { requestId: 'log-3', method: 'POST', path: '/agents/echo/tasks', status: 201 },
    ]);
    expect(entries[0].durationMs).toBeTypeOf('number');
    expect(taken).toEqual([true, true, true]);
  });

  it('logs a caller who left as 499, and a stream once it has ended, on both paths', async () => {
    for (const viaNode of [true, false]) {
      const { lines, destination } = collectLines();
      const { url } = await start({ logger: pino({ base: undefined }, destination) }, viaNode);
      const left = new AbortController();
      const waiting = fetch(`${url}/agents/ticker/tasks?wait=5`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'gone' },
        body: '{"input":"50 every 100ms"}',
        signal: left.signal,
      }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
      left.abort();
      await waiting;
      const streamed = await fetch(`${url}/agents/ticker/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'sse' },
        body: '{"input":"3 every 100ms"}',
      });
      await streamed.text();
      while (lines.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      const entries = lines.map((line) => JSON.parse(line));
      expect(
        entries.find((entry) => entry.requestId === 'gone'),
        String(viaNode),
      ).toMatchObject({
        status: 499,
      });
      const stream = entries.find((entry) => entry.requestId === 'sse');
      expect(stream, String(viaNode)).toMatchObject({ status: 200 });
      expect(stream.durationMs, String(viaNode)).toBeGreaterThanOrEqual(150);
    }
  });

  it('closes the connection of a JSON-RPC answer written after shutdown began, as the app does', async () => {
    for (const viaNode of [true, false]) {
      const { url, gateway } = await start({}, viaNode);
      const message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: '50 every 100ms' }] };
      const answering = fetch(`${url}/a2a/ticker/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
      });
      await new Promise((resolve) => setTimeout(resolve, 150));
      await gateway.shutdown();
      const answer = await answering;
      expect([viaNode, answer.headers.get('connection')]).toEqual([viaNode, 'close']);
      expect(await answer.json()).toMatchObject({
        result: { task: { status: { state: 'TASK_STATE_CANCELED' } } },
      });
    }
  });

  it('leaves calls to the app once shutting down (503)', async () => {
    const { url, gateway, taken } = await start();
    await gateway.shutdown();
    const refused = await invoke(url, '{"input":"x"}');
    expect(refused.status).toBe(503);
    expect(taken).toEqual([false]);
    // A path with a dot segment too: 503 and close, as every answer while shutting down.
    const { hostname, port } = new URL(url);
    const dotted = await new Promise<IncomingMessage>((resolve, reject) => {
      const path = '/agents/ticker/../echo/invoke';
      const headers = { 'content-type': 'application/json' };
      const sent = httpRequest({ hostname, port, path, method: 'POST', headers });
      sent.on('response', resolve);
      sent.on('error', reject);
      sent.end('{"input":"x"}');
    });
    dotted.resume();
    expect(dotted.statusCode).toBe(503);
    expect(dotted.headers.connection).toBe('close');
  });
});

describe('CORS over a real socket', () => {
  it('says Vary: Origin once on every answer, streams written straight to Node included', async () => {
    const { url } = await start({ cors: ['http://site.test'] });
    const headers = { 'content-type': 'application/json', origin: 'http://site.test' };
    const answers = await Promise.all([
      fetch(`${url}/agents/ticker/stream`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ input: '2 every 10ms' }),
      }),
      fetch(`${url}/compat/runs`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ agent_name: 'echo', input: 'hi', stream: true }),
      }),
      fetch(`${url}/agents/echo/invoke`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ input: 'hi' }),
      }),
    ]);
    for (const answer of answers) {
      await answer.text();
      expect(answer.headers.get('access-control-allow-origin'), answer.url).toBe(
        'http://site.test',
      );
      expect(answer.headers.get('vary'), answer.url).toBe('Origin');
    }
  });
});
