import { AgentPortError, defineAgent, defineTool } from '@agentport/core';
import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import {
  createBrokenAgent,
  createMistypedAgent,
  createThrowingAgent,
  createUnfinishedAgent,
  createUnserialisableAgent,
  createWaitingAgent,
  eventsOf,
  readSSE,
} from '@agentport/http/testing';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createRestServer } from './rest-server.ts';

const shout = defineTool({
  name: 'shout',
  description: 'Upper-cases text',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text.toUpperCase(),
});

const loud = defineAgent({
  name: 'loud',
  description: 'Shouts its input',
  tools: [shout],
  async *run(input, context) {
    const output = yield* context.callTool(shout, { text: input });
    return output;
  },
});

function createServer(options: Parameters<typeof createRestServer>[0] = {}) {
  return createRestServer(options)
    .register('echo', createEchoAgent())
    .register('team/loud', loud)
    .register('broken', createBrokenAgent())
    .register('thrower', createThrowingAgent())
    .register('unfinished', createUnfinishedAgent())
    .register('ticker', createTickerAgent());
}

const app = createServer().app;

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return app.request(path, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
}

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

describe('register', () => {
  it('returns the server so registrations chain', () => {
    const server = createRestServer();
    expect(server.register('a', createEchoAgent())).toBe(server);
  });

  it.each([
    ['an empty name', ''],
    ['only slashes', '///'],
    ['upper case', 'Echo'],
    ['a space', 'my agent'],
    ['an empty segment', 'team//echo'],
    ['a dot segment', 'team/../echo'],
    ['a dot', 'echo.v2'],
    ['a segment over 64 characters', 'x'.repeat(65)],
    ['a name over 256 characters', Array.from({ length: 60 }, () => 'abcd').join('/')],
  ])('throws invalid_input for %s', (_, name) => {
    const server = createRestServer();
    let thrown: unknown;
    try {
      server.register(name, createEchoAgent());
    } catch (error) {
      thrown = error;
    }
    expect(AgentPortError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'invalid_input', field: 'name', status: 400 });
  });

  it('throws invalid_input for a name that is not a string or a value that is not an agent', () => {
    const server = createRestServer();
    expect(() => server.register(42 as never, createEchoAgent())).toThrow(/must be a string/);
    expect(() => server.register('echo', { name: 'echo' } as never)).toThrow(/is not an agent/);
  });

  it('trims surrounding slashes and refuses a name already taken', async () => {
    const server = createRestServer().register('/team/echo/', createEchoAgent());
    expect(() => server.register('team/echo', createEchoAgent())).toThrow(
      expect.objectContaining({ code: 'duplicate_agent', status: 409 }),
    );
    const response = await server.app.request('/team/echo');
    expect(response.status).toBe(200);
  });

  it('accepts digits, dashes and underscores in every segment', () => {
    expect(() =>
      createRestServer().register('v2/my-team/agent_1', createEchoAgent()),
    ).not.toThrow();
  });
});

describe('GET / and GET /{name}', () => {
  it('lists the registered agents with their descriptions and tools, in order', async () => {
    const response = await app.request('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const { agents } = (await response.json()) as { agents: { name: string }[] };
    expect(agents.map((agent) => agent.name)).toEqual([
      'echo',
      'team/loud',
      'broken',
      'thrower',
      'unfinished',
      'ticker',
    ]);
    expect(agents[1]).toEqual({
      name: 'team/loud',
      description: 'Shouts its input',
      tools: [
        {
          name: 'shout',
          description: 'Upper-cases text',
          parameters: expect.objectContaining({ type: 'object' }),
        },
      ],
    });
  });

  it('shows agents registered after the first listing', async () => {
    const server = createRestServer().register('one', createEchoAgent());
    await server.app.request('/');
    server.register('two', createEchoAgent());
    const { agents } = (await (await server.app.request('/')).json()) as {
      agents: { name: string }[];
    };
    expect(agents.map((agent) => agent.name)).toEqual(['one', 'two']);
  });

  it('shows one agent, including one with a multi-segment name', async () => {
    const echo = await app.request('/echo');
    expect(await echo.json()).toEqual({
      name: 'echo',
      description: 'Streams its input back word by word.',
      tools: [],
    });
    const team = await app.request('/team/loud');
    expect(((await team.json()) as { name: string }).name).toBe('team/loud');
  });

  it('answers HEAD like GET, without a body', async () => {
    for (const path of ['/echo', '/']) {
      const response = await app.request(path, { method: 'HEAD' });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('');
    }
  });

  it('answers 404 agent_not_found for an unknown name, whatever the method', async () => {
    for (const [method, path] of [
      ['GET', '/nobody'],
      ['POST', '/nobody'],
      ['PUT', '/nobody'],
      ['DELETE', '/team/nobody'],
    ] as const) {
      const response = await app.request(path, { method });
      expect(response.status, method).toBe(404);
      expect(await errorOf(response), method).toEqual({
        code: 'agent_not_found',
        message: `Agent '${path.slice(1)}' not found`,
      });
    }
  });

  it.each(['/echo/', '/Echo', '/team/loud/'])(
    'answers 404 not_found for %s, which no agent could be named',
    async (path) => {
      const response = await app.request(path);
      expect(response.status).toBe(404);
      expect(await errorOf(response)).toEqual({
        code: 'not_found',
        message: `No route for ${path}`,
      });
    },
  );
});

describe('POST /{name}/invoke', () => {
  it('answers 200 with the result', async () => {
    const response = await post('/echo/invoke', { input: 'hello there' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ result: 'hello there', status: 'completed' });
  });

  it('reaches an agent with a multi-segment name', async () => {
    const response = await post('/team/loud/invoke', { input: 'hi' });
    expect(await response.json()).toMatchObject({ result: 'HI', status: 'completed' });
  });

  it('ignores fields other than input', async () => {
    const response = await post('/echo/invoke', { input: 'x', extra: true });
    expect(await response.json()).toMatchObject({ result: 'x', status: 'completed' });
  });

  it('answers 500 agent_failure with a safe message when the agent fails', async () => {
    for (const name of ['broken', 'thrower']) {
      const response = await post(`/${name}/invoke`, { input: 'x' });
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({
        error: { code: 'agent_failure', message: `Agent '${name}' failed` },
      });
      expect(text).not.toMatch(/hunter2|secret|at /);
    }
  });

  it('answers 500 agent_failure when a hand-written agent resolves to something other than a string', async () => {
    const server = createRestServer()
      .register('number', createMistypedAgent(42, 'number'))
      .register('nothing', createMistypedAgent(undefined, 'nothing'))
      .register('object', createMistypedAgent({ result: 'nested' }, 'object'));
    for (const name of ['number', 'nothing', 'object']) {
      const response = await server.app.request(`/${name}/invoke`, {
        method: 'POST',
        body: '{"input":"x"}',
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({
        error: { code: 'agent_failure', message: `Agent '${name}' failed` },
      });
      expect(text).not.toMatch(/42|nested|string|undefined/);
    }
  });

  it("answers with the status of the agent's own error", async () => {
    const response = await post('/ticker/invoke', { input: 'not a number' });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid_input' });
  });
});

describe('POST /{name}/stream', () => {
  it("streams one SSE event per agent event, ids from 3 (the task log's), ending with done", async () => {
    const response = await post('/echo/stream', { input: 'one two three' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    const parsed = await readSSE(response);
    // 1 and 2 are the task's creation and start in its log, which the stream does not send.
    expect(parsed.events.map((event) => event.id)).toEqual(['3', '4', '5', '6']);
    expect(eventsOf(parsed)).toEqual([
      { event: 'text-delta', data: { delta: 'one' } },
      { event: 'text-delta', data: { delta: ' two' } },
      { event: 'text-delta', data: { delta: ' three' } },
      { event: 'done', data: { output: 'one two three' } },
    ]);
  });

  it('streams tool-call and tool-result events', async () => {
    const parsed = await readSSE(await post('/team/loud/stream', { input: 'hey' }));
    expect(parsed.events.map((event) => event.event)).toEqual(['tool-call', 'tool-result', 'done']);
    expect(eventsOf(parsed)[1]?.data).toMatchObject({ name: 'shout', output: 'HEY' });
  });

  it("numbers each stream by its own task's log", async () => {
    const first = await post('/echo/stream', { input: 'a' });
    const second = await post('/echo/stream', { input: 'b' });
    expect(first.headers.get('content-location')).not.toBe(second.headers.get('content-location'));
    expect((await readSSE(first)).events[0]?.id).toBe('3');
    expect((await readSSE(second)).events[0]?.id).toBe('3');
  });

  it('ends with an error event, with a safe message, when the agent fails', async () => {
    const parsed = await readSSE(await post('/broken/stream', { input: 'x' }));
    expect(eventsOf(parsed)).toEqual([
      { event: 'text-delta', data: { delta: 'partial' } },
      {
        event: 'error',
        data: { code: 'agent_failure', message: "Agent 'broken' failed" },
      },
    ]);
    expect(parsed.events.at(-1)?.id).toBe('4');
  });

  it('numbers the error event right after the last event when an event cannot be serialised', async () => {
    const server = createRestServer().register('unserialisable', createUnserialisableAgent(10n));
    const response = await server.app.request('/unserialisable/stream', {
      method: 'POST',
      body: '{"input":"x"}',
      headers: { 'content-type': 'application/json' },
    });
    const parsed = await readSSE(response);
    // The event that cannot be sent is not in the log either: the failure takes its number.
    expect(parsed.events.map((event) => event.id)).toEqual(['3', '4']);
    expect(eventsOf(parsed)).toEqual([
      { event: 'text-delta', data: { delta: 'before' } },
      {
        event: 'error',
        data: { code: 'agent_failure', message: "Agent 'unserialisable' failed" },
      },
    ]);
  });

  it('ends with an error event when a hand-written agent throws or stops early', async () => {
    const thrown = eventsOf(await readSSE(await post('/thrower/stream', { input: 'x' })));
    expect(thrown).toEqual([
      {
        event: 'error',
        data: { code: 'agent_failure', message: "Agent 'thrower' failed" },
      },
    ]);
    const unfinished = eventsOf(await readSSE(await post('/unfinished/stream', { input: 'x' })));
    expect(unfinished.at(-1)).toEqual({
      event: 'error',
      data: {
        code: 'agent_failure',
        message: "Agent 'unfinished' ended without a result",
      },
    });
  });

  it("reports the agent's own error code in the error event", async () => {
    const parsed = eventsOf(await readSSE(await post('/ticker/stream', { input: 'soon' })));
    expect(parsed).toEqual([
      { event: 'error', data: expect.objectContaining({ code: 'invalid_input' }) },
    ]);
  });

  it("aborts the agent's signal when the caller aborts the request", async () => {
    const { agent, aborted } = createWaitingAgent();
    const server = createRestServer().register('waiter', agent);
    const controller = new AbortController();
    const response = await server.app.request('/waiter/stream', {
      method: 'POST',
      body: JSON.stringify({ input: 'x' }),
      headers: { 'content-type': 'application/json' },
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toContain('started');
    controller.abort();
    await aborted;
  });

  it('stops the agent when the reader cancels the stream', async () => {
    const { agent, aborted } = createWaitingAgent();
    const server = createRestServer().register('waiter', agent);
    const response = await server.app.request('/waiter/stream', {
      method: 'POST',
      body: '{"input":"x"}',
      headers: { 'content-type': 'application/json' },
    });
    const reader = response.body?.getReader();
    await reader?.read();
    await reader?.cancel();
    await aborted;
  });
});

describe('bad requests', () => {
  it.each(['invoke', 'stream'])(
    'answers 400 invalid_json for a %s body that is not JSON',
    async (action) => {
      const response = await post(`/echo/${action}`, '{"input": ');
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: 'invalid_json' });
    },
  );

  it.each([
    ['a missing input', {}, 'input: is required'],
    ['an empty input', { input: '' }, 'input: must not be empty'],
    ['a number input', { input: 42 }, 'input: must be a string or a list of parts'],
    ['a null input', { input: null }, 'input: must be a string or a list of parts'],
    ['an array body', ['x'], 'body: must be a JSON object with an input'],
    ['a string body', 'hello', 'body: must be a JSON object with an input'],
  ])('answers 400 invalid_input for %s', async (_, body, message) => {
    for (const action of ['invoke', 'stream']) {
      const response = await post(`/echo/${action}`, JSON.stringify(body));
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toEqual({ code: 'invalid_input', message });
    }
  });

  it('answers 415 for a body that is not JSON by content type', async () => {
    for (const action of ['invoke', 'stream']) {
      const response = await post(`/echo/${action}`, '{"input":"x"}', {
        'content-type': 'text/plain',
      });
      expect(response.status).toBe(415);
      expect(await errorOf(response)).toMatchObject({ code: 'unsupported_media_type' });
    }
  });

  it('answers 413 for a body over the limit, 1 MiB by default', async () => {
    const big = JSON.stringify({ input: 'x'.repeat(1024 * 1024) });
    for (const action of ['invoke', 'stream']) {
      const response = await post(`/echo/${action}`, big, { 'content-length': String(big.length) });
      expect(response.status).toBe(413);
      expect(await errorOf(response)).toMatchObject({ code: 'payload_too_large' });
    }
    const small = createServer({ maxBodyBytes: 50 }).app;
    const response = await small.request('/echo/invoke', {
      method: 'POST',
      body: JSON.stringify({ input: 'y'.repeat(60) }),
      headers: { 'content-type': 'application/json', 'content-length': '72' },
    });
    expect(response.status).toBe(413);
  });

  it('counts a body of undeclared length (chunked) against the limit as it is read', async () => {
    const small = createServer({ maxBodyBytes: 50 }).app;
    const chunked = (text: string) =>
      small.request('/echo/invoke', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(text));
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
    const over = await chunked(JSON.stringify({ input: 'y'.repeat(60) }));
    expect(over.status).toBe(413);
    expect(await errorOf(over)).toMatchObject({ code: 'payload_too_large' });
    const within = await chunked(JSON.stringify({ input: 'short' }));
    expect(within.status).toBe(200);
    expect(await within.json()).toMatchObject({ result: 'short', status: 'completed' });
  });

  it('answers 404 agent_not_found for an action of an unknown agent', async () => {
    for (const path of ['/nobody/invoke', '/team/nobody/stream']) {
      const response = await post(path, { input: 'x' });
      expect(response.status).toBe(404);
      expect(await errorOf(response)).toMatchObject({ code: 'agent_not_found' });
    }
  });

  it('answers 404 not_found for an unknown action', async () => {
    const response = await post('/echo/explode', { input: 'x' });
    expect(response.status).toBe(404);
    expect(await errorOf(response)).toMatchObject({ code: 'not_found' });
  });

  it('answers 404 not_found for a path with an encoded slash, which names nothing', async () => {
    for (const path of ['/echo%2Finvoke', '/team%2floud/stream', '/team%2Floud']) {
      const response = path.endsWith('loud')
        ? await app.request(path)
        : await post(path, { input: 'x' });
      expect(response.status, path).toBe(404);
      expect(await errorOf(response), path).toMatchObject({ code: 'not_found' });
    }
    // Other escapes are the characters they stand for (RFC 3986): %65 is e.
    expect((await post('/%65cho/invoke', { input: 'x' })).status).toBe(200);
  });

  it('answers 405 with Allow: POST for another method on an action', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const response = await app.request('/echo/invoke', { method });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(await errorOf(response)).toMatchObject({ code: 'method_not_allowed' });
    }
    expect((await app.request('/team/loud/stream')).headers.get('allow')).toBe('POST');
  });

  it('answers 405 with Allow: GET, HEAD for a write to an agent or the listing', async () => {
    for (const path of ['/echo', '/']) {
      const response = await app.request(path, { method: 'POST' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
    }
  });
});

describe('mounting', () => {
  it('serves the same routes under a prefix of another Hono app', async () => {
    const gateway = new Hono().route('/agents', createServer().app);
    const invoked = await gateway.request('/agents/team/loud/invoke', {
      method: 'POST',
      body: '{"input":"mounted"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(await invoked.json()).toMatchObject({ result: 'MOUNTED', status: 'completed' });
    const listed = (await (await gateway.request('/agents')).json()) as { agents: unknown[] };
    expect(listed.agents).toHaveLength(6);
    const missing = await gateway.request('/agents/nobody/invoke', { method: 'POST' });
    expect(missing.status).toBe(404);
    expect(await errorOf(missing)).toMatchObject({ code: 'agent_not_found' });
  });
});

describe('shutting down', () => {
  it('answers 503 shutting_down to new calls once its listen signal aborts', async () => {
    const server = createRestServer().register('echo', createEchoAgent());
    const controller = new AbortController();
    const stopped = server.listen({ signal: controller.signal });
    controller.abort();
    await stopped;
    const response = await server.app.request('/echo/invoke', {
      method: 'POST',
      body: '{"input":"late"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(503);
    expect(await errorOf(response)).toMatchObject({ code: 'shutting_down' });
    expect((await server.app.request('/echo')).status).toBe(200);
  });
});
