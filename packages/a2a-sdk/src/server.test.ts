import { once } from 'node:events';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import {
  createMemoryTaskStore,
  createTaskRunner,
  InvalidInputError,
  type TaskStore,
} from '@agentport/core';
import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { describe, expect, it, vi } from 'vitest';
import { createA2ASdkServer } from './server.ts';
import { ListenerExecutionEventBus } from './store/event-bus.ts';
import { listenFetch } from './test-support/listen.ts';

const config = {
  name: 'Echo',
  version: '1.0.0',
  description: 'Echoes',
  url: 'http://localhost/a2a/echo',
};
const V1 = { 'A2A-Version': '1.0', 'content-type': 'application/json' };

describe('createA2ASdkServer', () => {
  it('returns the card it serves', async () => {
    const { app, card } = createA2ASdkServer({ agent: createEchoAgent(), card: config });
    const response = await app.request('/.well-known/agent-card.json', { headers: V1 });
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(card)));
  });

  it('answers an unknown HTTP+JSON route with a JSON 404', async () => {
    const { app } = createA2ASdkServer({ agent: createEchoAgent(), card: config });
    const response = await app.request('/rest/nothing/here/at/all', { headers: V1 });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
  });

  it('answers v0.3 calls it refuses before any route in the v0.3 error shape', async () => {
    const { app } = createA2ASdkServer({
      agent: createEchoAgent(),
      card: config,
      maxBodyBytes: 64,
    });
    const legacy = { 'content-type': 'application/json' };
    const body = JSON.stringify({ padding: 'x'.repeat(200) });
    const large = await app.request('/rest/v1/message:send', {
      method: 'POST',
      headers: legacy,
      body,
    });
    expect(large.status).toBe(413);
    expect(await large.json()).toEqual({ code: -32600, message: expect.stringContaining('64') });
    const unknown = await app.request('/rest/v1/nope', { headers: legacy });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      code: -32601,
      message: 'Method not found: GET /rest/v1/nope',
    });
    // A v1.0 call of the same paths keeps the v1.0 shape.
    const v1 = await app.request('/rest/v1/nope', { headers: V1 });
    expect(await v1.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
  });

  it('answers a message with a malformed part as invalid params, not an internal error', async () => {
    const { app } = createA2ASdkServer({ agent: createEchoAgent(), card: config });
    const message = { messageId: 'm', role: 'ROLE_USER', parts: [null] };
    for (const method of ['SendMessage', 'SendStreamingMessage']) {
      const response = await app.request('/jsonrpc', {
        method: 'POST',
        headers: V1,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { message } }),
      });
      expect(response.status, method).toBe(200);
      const answer = await response.json();
      expect(answer, method).toMatchObject({ id: 1, error: { code: -32602 } });
      expect(answer.error.message, method).not.toMatch(/Cannot read|properties of/);
    }
    for (const path of ['/rest/message:send', '/rest/message:stream']) {
      const response = await app.request(path, {
        method: 'POST',
        headers: V1,
        body: JSON.stringify({ message }),
      });
      expect(response.status, path).toBe(400);
      const answer = await response.json();
      expect(answer, path).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
      expect(answer.error.message, path).not.toMatch(/Cannot read|properties of/);
    }
  });

  it('answers a message without parts as invalid params on every binding, and runs nothing', async () => {
    let runs = 0;
    const agent = createEchoAgent();
    const counted = {
      ...agent,
      stream: (input: string, options?: Parameters<typeof agent.stream>[1]) => {
        runs += 1;
        return agent.stream(input, options);
      },
    };
    const { app } = createA2ASdkServer({ agent: counted, card: config });
    const post = (path: string, headers: Record<string, string>, body: unknown) =>
      app.request(path, { method: 'POST', headers, body: JSON.stringify(body) });
    for (const parts of [[], 'oops', [{}]]) {
      const message = { messageId: 'm', role: 'ROLE_USER', parts };
      for (const method of ['SendMessage', 'SendStreamingMessage']) {
        const response = await post('/jsonrpc', V1, {
          jsonrpc: '2.0',
          id: 1,
          method,
          params: { message },
        });
        const text = await response.text();
        expect(text, `${method} ${JSON.stringify(parts)}`).toContain('"code":-32602');
        expect(text).toMatch(
          /message\.parts must hold at least one part\.|message\.parts\[0\] is not a text, file or data part\./,
        );
      }
      for (const path of ['/rest/message:send', '/rest/message:stream']) {
        const response = await post(path, V1, { message });
        expect(response.status, path).toBe(400);
        expect(await response.json(), path).toMatchObject({
          error: { code: 400, status: 'INVALID_ARGUMENT' },
        });
      }
      const legacy = { kind: 'message', messageId: 'm3', role: 'user', parts: [] };
      const v03 = await post(
        '/jsonrpc',
        { 'content-type': 'application/json' },
        { jsonrpc: '2.0', id: 2, method: 'message/send', params: { message: legacy } },
      );
      expect(await v03.json()).toMatchObject({ id: 2, error: { code: -32602 } });
    }
    expect(runs).toBe(0);
    // One part is enough, even an empty text.
    const one = await post('/jsonrpc', V1, {
      jsonrpc: '2.0',
      id: 3,
      method: 'SendMessage',
      params: { message: { messageId: 'm4', role: 'ROLE_USER', parts: [{ text: '' }] } },
    });
    expect(await one.json()).toMatchObject({ id: 3, result: { task: {} } });
  });

  it('answers a v0.3 task call whose id is not a string as invalid params, SSE included', async () => {
    const { app } = createA2ASdkServer({ agent: createEchoAgent(), card: config });
    const call = (method: string, id: unknown) =>
      app.request('/jsonrpc', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { id } }),
      });
    const invalid = { code: -32602, message: 'Invalid params: id must be a string' };
    for (const method of ['tasks/get', 'tasks/cancel']) {
      for (const id of [5, ['a'], { x: 1 }]) {
        const response = await call(method, id);
        expect(response.status, method).toBe(200);
        expect(await response.json(), method).toEqual({ jsonrpc: '2.0', id: 7, error: invalid });
      }
    }
    const resubscribe = await call('tasks/resubscribe', 5);
    expect(resubscribe.headers.get('content-type')).toContain('text/event-stream');
    const text = await resubscribe.text();
    expect(text).toContain('"code":-32602');
    expect(text).not.toContain('trim');
    // A string id that names no task is still the SDK's own task-not-found.
    expect(await (await call('tasks/get', 'nope')).json()).toMatchObject({
      error: { code: -32001 },
    });
  });

  it('answers a v0.3 message/stream that fails at once as SSE for v0.3 clients, as JSON for A2A-Version 0.3', async () => {
    const { app } = createA2ASdkServer({ agent: createEchoAgent(), card: config });
    const followUp = (headers: Record<string, string>) =>
      app.request('/jsonrpc', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 9,
          method: 'message/stream',
          params: {
            message: {
              kind: 'message',
              messageId: 'm-1',
              role: 'user',
              taskId: 'no-such-task',
              parts: [{ kind: 'text', text: 'x' }],
            },
          },
        }),
      });
    // A v0.3 client (no A2A-Version) reads only an event stream here.
    const v03Headers: Record<string, string>[] = [{}, { 'A2A-Version': '' }];
    for (const headers of v03Headers) {
      const response = await followUp(headers);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const text = await response.text();
      expect(text).toMatch(/^event: error\ndata: /);
      expect(JSON.parse(text.slice(text.indexOf('data: ') + 6))).toMatchObject({
        id: 9,
        error: { code: -32001 },
      });
    }
    // A v1.0 client speaking v0.3 gets the JSON envelope, which it turns into the typed error.
    const versioned = await followUp({ 'A2A-Version': '0.3' });
    expect(versioned.headers.get('content-type')).toContain('application/json');
    expect(await versioned.json()).toMatchObject({ id: 9, error: { code: -32001 } });
  });

  it('lists for a JSON-RPC ListTasks with status UNRECOGNIZED, and refuses other unknown ones', async () => {
    const { app } = createA2ASdkServer({ agent: createEchoAgent(), card: config });
    const list = (status: string) =>
      app.request('/jsonrpc', {
        method: 'POST',
        headers: V1,
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ListTasks', params: { status } }),
      });
    expect(await (await list('UNRECOGNIZED')).json()).toMatchObject({
      id: 3,
      result: { tasks: [] },
    });
    expect(await (await list('TASK_STATE_BOGUS')).json()).toMatchObject({
      id: 3,
      error: { code: -32602 },
    });
  });

  it('refuses JSON declared in a charset other than UTF-8 on every binding, and takes UTF-8', async () => {
    const { app } = createA2ASdkServer({ agent: createEchoAgent(), card: config });
    const bytes = (text: string, encoding: BufferEncoding) =>
      new Uint8Array(Buffer.from(text, encoding));
    const latin1 = bytes(
      '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"caf\u00e9"}]}}}',
      'latin1',
    );
    const send = (path: string, charset: string, body: Uint8Array<ArrayBuffer>, version = '1.0') =>
      app.request(path, {
        method: 'POST',
        headers: { 'content-type': `application/json; charset=${charset}`, 'A2A-Version': version },
        body,
      });
    const reason = 'Unsupported charset "iso-8859-1": JSON is taken in UTF-8 only.';
    const rpc = await send('/jsonrpc', 'iso-8859-1', latin1);
    expect(await rpc.json()).toMatchObject({ error: { code: -32700, message: reason } });
    const restBody = bytes(
      '{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"caf\u00e9"}]}}',
      'latin1',
    );
    const rest = await send('/rest/message:send', 'iso-8859-1', restBody);
    expect(rest.status).toBe(400);
    expect(await rest.json()).toMatchObject({ error: { message: reason } });
    const legacy = await send('/rest/v1/message:send', 'iso-8859-1', restBody, '0.3');
    expect(legacy.status).toBe(400);
    expect(await legacy.json()).toMatchObject({ code: -32700, message: reason });
    // Declared as UTF-8 (any spelling), the same text is taken as sent.
    const utf8 = bytes(Buffer.from(latin1).toString('latin1'), 'utf8');
    const taken = await send('/jsonrpc', '"UTF8"', utf8);
    expect(JSON.stringify(await taken.json())).toContain('café');
  });

  it('refuses a body that is not UTF-8, or is compressed, on every binding', async () => {
    const { app } = createA2ASdkServer({ agent: createEchoAgent(), card: config });
    const rpcBody = (text: Buffer) =>
      Buffer.concat([
        Buffer.from(
          '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"',
        ),
        text,
        Buffer.from('"}]}}}'),
      ]);
    const restBody = (text: Buffer) =>
      Buffer.concat([
        Buffer.from('{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"'),
        text,
        Buffer.from('"}]}}'),
      ]);
    const notUtf8 = Buffer.from([0x61, 0xff, 0xfe, 0x62]);
    const send = (path: string, body: Buffer, headers: Record<string, string> = {}) =>
      app.request(path, {
        method: 'POST',
        headers: { ...V1, ...headers },
        body: new Uint8Array(body),
      });
    const cases = [
      [notUtf8, {}, 'The body is not valid UTF-8.'],
      [
        Buffer.from('hi'),
        { 'content-encoding': 'gzip' },
        'Unsupported Content-Encoding "gzip": send the body uncompressed.',
      ],
    ] as const;
    for (const [text, headers, reason] of cases) {
      const rpc = await send('/jsonrpc', gzipIf(headers, rpcBody(text)), headers);
      expect(await rpc.json(), reason).toMatchObject({ error: { code: -32700, message: reason } });
      const rest = await send('/rest/message:send', gzipIf(headers, restBody(text)), headers);
      expect(rest.status, reason).toBe(400);
      expect(await rest.json(), reason).toMatchObject({ error: { message: reason } });
    }
    const taken = await send('/jsonrpc', rpcBody(Buffer.from('caf\u00e9 ✓')), {
      'content-encoding': 'identity',
    });
    expect(JSON.stringify(await taken.json())).toContain('café ✓');
  });

  it('refuses a message nested past what an answer can carry, and lists tasks afterwards', async () => {
    const { app } = createA2ASdkServer({
      agent: createEchoAgent(),
      card: config,
      maxBodyBytes: 1024 * 1024,
    });
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const message = `{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}],"metadata":${deep}}`;
    const rpc = await app.request('/jsonrpc', {
      method: 'POST',
      headers: V1,
      body: `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":${message}}}`,
    });
    expect(rpc.status).toBe(200);
    expect(await rpc.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'The body nests deeper than 64 levels.' },
    });
    const rest = await app.request('/rest/message:send', {
      method: 'POST',
      headers: V1,
      body: `{"message":${message}}`,
    });
    expect(rest.status).toBe(400);
    expect(await rest.json()).toMatchObject({
      error: { code: 400, message: 'The body nests deeper than 64 levels.' },
    });
    const legacy = await app.request('/rest/v1/message:send', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"message":${message}}`,
    });
    expect(legacy.status).toBe(400);
    expect(await legacy.json()).toEqual({
      code: -32600,
      message: 'The body nests deeper than 64 levels.',
    });
    const list = await app.request('/jsonrpc', {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ListTasks', params: {} }),
    });
    expect(await list.json()).toMatchObject({ id: 2, result: { tasks: [] } });
  });

  it('refuses a maxConcurrency that is not an integer of at least 1 when created', () => {
    for (const maxConcurrency of [0, -1, 2.5, Number.NaN, '4' as unknown as number]) {
      const create = () =>
        createA2ASdkServer({ agent: createEchoAgent(), card: config, maxConcurrency });
      expect(create).toThrow(InvalidInputError);
      expect(create).toThrow(/^maxConcurrency must be an integer of at least 1, got /);
    }
    expect(() =>
      createA2ASdkServer({ agent: createEchoAgent(), card: config, maxConcurrency: 1 }),
    ).not.toThrow();
  });

  it('prints nothing when a caller leaves while its body is coming in, on either binding', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const server = createA2ASdkServer({ agent: createEchoAgent(), card: config });
    const listening = await listenFetch(server.app.fetch);
    try {
      for (const path of ['/jsonrpc', '/rest/message:send']) {
        const { port } = new URL(listening.origin);
        const socket = connect(Number(port), '127.0.0.1');
        await once(socket, 'connect');
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: x\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`,
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
        socket.destroy();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
      await listening.close();
    }
  });

  it('answers a GET of the JSON-RPC endpoint with 405 and Allow: POST', async () => {
    const { app } = createA2ASdkServer({ agent: createEchoAgent(), card: config });
    const response = await app.request('/jsonrpc');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toMatchObject({ error: { code: -32600 } });
  });

  it('refuses bodies over the limit with 413 on both bindings', async () => {
    const { app } = createA2ASdkServer({
      agent: createEchoAgent(),
      card: config,
      maxBodyBytes: 64,
    });
    const body = JSON.stringify({ padding: 'x'.repeat(200) });
    const rpc = await app.request('/jsonrpc', { method: 'POST', headers: V1, body });
    expect(rpc.status).toBe(413);
    expect(await rpc.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    const rest = await app.request('/rest/message:send', { method: 'POST', headers: V1, body });
    expect(rest.status).toBe(413);
    expect(await rest.json()).toMatchObject({ error: { code: 413, status: 'INVALID_ARGUMENT' } });
  });

  it('closes the connection of a 413, for a declared length or a body counted past the limit', async () => {
    const { app } = createA2ASdkServer({
      agent: createEchoAgent(),
      card: config,
      maxBodyBytes: 64,
    });
    const body = JSON.stringify({ padding: 'x'.repeat(200) });
    for (const path of ['/jsonrpc', '/rest/message:send']) {
      // Counting stops at the limit: the rest of the body would be read as a next request.
      const counted = await app.request(path, { method: 'POST', headers: V1, body });
      expect([path, counted.status, counted.headers.get('connection')]).toEqual([
        path,
        413,
        'close',
      ]);
      // A declared length is refused from the header: the body is not read either.
      const declared = await app.request(path, {
        method: 'POST',
        headers: { ...V1, 'content-length': String(body.length) },
        body,
      });
      expect([path, declared.status, declared.headers.get('connection')]).toEqual([
        path,
        413,
        'close',
      ]);
    }
  });

  it('lets go of a subscription whose client leaves, on every binding, while its quiet task runs on', async () => {
    const on = vi.spyOn(ListenerExecutionEventBus.prototype, 'on');
    const off = vi.spyOn(ListenerExecutionEventBus.prototype, 'off');
    // Listeners of events added and not removed since (a listener may be removed twice).
    const listening = () => {
      const removed = new Set(off.mock.calls.map(([, listener]) => listener));
      return on.mock.calls.filter(([name, listener]) => name === 'event' && !removed.has(listener))
        .length;
    };
    try {
      const { app } = createA2ASdkServer({ agent: createTickerAgent(), card: config });
      const started = await app.request('/jsonrpc', {
        method: 'POST',
        headers: V1,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendStreamingMessage',
          params: {
            message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: '10 every 60s' }] },
          },
        }),
      });
      const starter = (started.body as ReadableStream<Uint8Array>).getReader();
      const first = new TextDecoder().decode((await starter.read()).value);
      const id = /"id":"([^"]+)"/.exec(first.slice(first.indexOf('"task"')))?.[1] as string;
      const legacy = { 'content-type': 'application/json' };
      const rpc = (method: string) => ({ jsonrpc: '2.0', id: 2, method, params: { id } });
      const subscriptions: [string, RequestInit][] = [
        ['/jsonrpc', { method: 'POST', headers: V1, body: JSON.stringify(rpc('SubscribeToTask')) }],
        [
          '/jsonrpc',
          { method: 'POST', headers: legacy, body: JSON.stringify(rpc('tasks/resubscribe')) },
        ],
        [`/rest/tasks/${id}:subscribe`, { method: 'POST', headers: V1 }],
        [`/rest/v1/tasks/${id}:subscribe`, { method: 'POST', headers: legacy }],
      ];
      for (const [path, init] of subscriptions) {
        const before = listening();
        const caller = new AbortController();
        const response = await app.request(path, { ...init, signal: caller.signal });
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        await reader.read();
        expect(listening(), path).toBe(before + 1);
        caller.abort();
        await reader.cancel();
        // Let go at once: not at the task's next event (a minute away), nor when it ends.
        await vi.waitFor(() => expect(listening(), path).toBe(before), { timeout: 2000 });
      }
      await starter.cancel();
      const canceled = await app.request('/jsonrpc', {
        method: 'POST',
        headers: V1,
        body: JSON.stringify(rpc('CancelTask')),
      });
      expect(await canceled.json()).toMatchObject({
        result: { status: { state: 'TASK_STATE_CANCELED' } },
      });
    } finally {
      on.mockRestore();
      off.mockRestore();
    }
  });

  it('without legacy compatibility, serves the v1.0 card to everyone and refuses v0.3 calls', async () => {
    const { app } = createA2ASdkServer({
      agent: createEchoAgent(),
      card: config,
      legacyCompat: false,
    });
    const cardResponse = await app.request('/.well-known/agent-card.json');
    const card = (await cardResponse.json()) as Record<string, unknown>;
    expect(card).toHaveProperty('supportedInterfaces');
    expect(card).not.toHaveProperty('protocolVersion');
    const response = await app.request('/jsonrpc', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: {} }),
    });
    expect(await response.json()).toMatchObject({ id: 1, error: { code: -32009 } });
  });
});

/** The body gzipped when the headers say so. */
function gzipIf(headers: Record<string, string>, body: Buffer): Buffer {
  return headers['content-encoding'] === 'gzip' ? gzipSync(body) : body;
}

/** A store counting the reads of a task (a round trip each on a database). */
function countedStore(): { store: TaskStore; reads: () => number } {
  const store = createMemoryTaskStore();
  let reads = 0;
  return {
    store: {
      ...store,
      get: (id) => {
        reads += 1;
        return store.get(id);
      },
      events: (id, options) => {
        reads += 1;
        return store.events(id, options);
      },
    },
    reads: () => reads,
  };
}

describe('the reads of a SendMessage', () => {
  it('reads neither the task it runs nor its log, however many times the SDK saves its copy', async () => {
    const { store, reads } = countedStore();
    const agent = createEchoAgent();
    const runner = createTaskRunner({ agent, store });
    const { app } = createA2ASdkServer({ agent, card: config, runner });
    const response = await app.request('/jsonrpc', {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
      }),
    });
    const answer = await response.json();
    expect(answer.result.task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    // The follow starts from the task the runner created, and the saves know its message.
    expect(reads()).toBe(0);
  });
});
