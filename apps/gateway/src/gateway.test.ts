import { defineAgent, InvalidInputError } from '@agentport/core';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createBuiltinAgents } from './builtin-agents.ts';
import { createGateway, documentedRoutes, type GatewayOptions } from './gateway.ts';
import { listRoutes, toOpenApiPath } from './openapi.ts';
import { completed } from './testing/invoke-answer.ts';
import { collectLines } from './testing/log-lines.ts';

const KEY = 'test-key-0123456789abcdef';
const base = 'http://gateway.test';

function gateway(options: Partial<GatewayOptions> = {}) {
  return createGateway({
    agents: createBuiltinAgents(),
    defaultAgent: 'assistant',
    publicUrl: base,
    ...options,
  });
}

const json = { 'content-type': 'application/json' };

/** A v1.0 JSON-RPC SendMessage of `text` to an agent's official SDK surface. */
function sendMessage(
  app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
  agent: string,
  text: string,
  configuration?: Record<string, unknown>,
): Promise<Response> {
  const message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
  return Promise.resolve(
    app.request(`${base}/a2a/${agent}/jsonrpc`, {
      method: 'POST',
      headers: { ...json, 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: configuration === undefined ? { message } : { message, configuration },
      }),
    }),
  );
}

describe('createGateway', () => {
  const { app } = gateway();

  it('lists every agent with its URL on each surface at GET /', async () => {
    const response = await app.request(`${base}/`);
    const body = (await response.json()) as {
      defaultAgent: string;
      agents: Array<{ name: string; urls: Record<string, string> }>;
    };
    expect(body.defaultAgent).toBe('assistant');
    expect(body.agents.map((agent) => agent.name)).toEqual([
      'assistant',
      'echo',
      'ticker',
      'booking',
    ]);
    expect(body.agents[1]?.urls).toMatchObject({
      invoke: `${base}/agents/echo/invoke`,
      a2a: `${base}/agents/echo/.well-known/agent.json`,
      a2aSdkCard: `${base}/a2a/echo/.well-known/agent-card.json`,
      compat: `${base}/compat/agents/echo`,
    });
  });

  it('gives URLs on publicUrl in every card and the index, whatever Host a client sends', async () => {
    const forged = { headers: { host: 'evil.example:666' } };
    const at = (path: string) => app.request(`http://evil.example:666${path}`, forged);
    expect(await (await at('/.well-known/agent.json')).json()).toMatchObject({
      endpoint: base,
      version: '0.1.0',
    });
    expect(await (await at('/agents/echo/.well-known/agent.json')).json()).toMatchObject({
      endpoint: `${base}/agents/echo`,
    });
    expect((await (await at('/a2a/echo/.well-known/agent-card.json')).json()).url).toContain(base);
    const index = JSON.stringify(await (await at('/')).json());
    expect(index).toContain(`${base}/agents/echo/invoke`);
    expect(index).not.toContain('evil.example');
  });

  it('answers health and readiness', async () => {
    expect(await (await app.request('/healthz')).json()).toEqual({ status: 'ok' });
    expect(await (await app.request('/readyz')).json()).toEqual({ status: 'ready' });
  });

  it('serves the default agent on the hand-rolled A2A routes at the root and every agent under /agents', async () => {
    const root = await app.request(`${base}/.well-known/agent.json`);
    expect(await root.json()).toMatchObject({ name: 'assistant', endpoint: base });
    const echo = await app.request(`${base}/agents/echo/.well-known/agent.json`);
    expect(await echo.json()).toMatchObject({ name: 'echo', endpoint: `${base}/agents/echo` });
    const created = await app.request('/agents/echo/tasks?wait=5', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: 'hi there' }),
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      task: { status: 'completed', output: 'hi there' },
    });
  });

  it('names the missing agent on every surface, and keeps not_found for a served agent', async () => {
    const missing: Array<[string, RequestInit]> = [
      ['/agents/nobody/tasks', { method: 'POST', headers: json, body: '{"input":"x"}' }],
      ['/agents/nobody/tasks/some-id', {}],
      ['/agents/nobody/tasks/some-id/cancel', { method: 'POST' }],
      ['/agents/nobody/.well-known/agent.json', {}],
      ['/agents/nobody/invoke', { method: 'POST', headers: json, body: '{"input":"x"}' }],
      ['/agents/nobody/anything/else', {}],
      ['/agents/nobody', {}],
      ['/agents/nobody', { method: 'POST', headers: json, body: '{}' }],
      ['/agents/nobody', { method: 'DELETE' }],
      ['/a2a/nobody/jsonrpc', { method: 'POST', headers: json, body: '{}' }],
      ['/a2a/nobody/.well-known/agent-card.json', {}],
    ];
    for (const [path, init] of missing) {
      const response = await app.request(path, init);
      expect(response.status, path).toBe(404);
      expect(await response.json(), path).toEqual({
        error: { code: 'agent_not_found', message: "Agent 'nobody' not found" },
      });
    }
    for (const path of ['/agents/echo/tasks/a/b/c', '/agents/echo/whatever', '/a2a/echo/nope']) {
      const response = await app.request(path);
      expect(response.status, path).toBe(404);
      expect(await response.json(), path).toEqual({
        error: { code: 'not_found', message: `No route for ${path}` },
      });
    }
  });

  it("answers a write to the SDK's cards with 405 and Allow, as the hand-rolled ones", async () => {
    for (const path of [
      '/.well-known/agent-card.json',
      '/a2a/echo/.well-known/agent-card.json',
      '/.well-known/agent.json',
    ]) {
      const answer = await app.request(`${base}${path}`, { method: 'POST', body: '{}' });
      expect([path, answer.status, answer.headers.get('allow')]).toEqual([path, 405, 'GET, HEAD']);
    }
    const card = await app.request(`${base}/a2a/echo/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    const unknown = await app.request(`${base}/a2a/nobody/.well-known/agent-card.json`, {
      method: 'POST',
    });
    expect(unknown.status).toBe(404);
  });

  it('still answers a wrong method on a served agent with 405 and Allow', async () => {
    const response = await app.request('/agents/echo/invoke');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await app.request('/agents/echo')).toHaveProperty('status', 200);
  });

  it('serves REST/SSE invoke and stream next to the A2A routes of the same agent', async () => {
    const invoked = await app.request('/agents/assistant/invoke', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: 'what is 6 * 7' }),
    });
    expect(await invoked.json()).toEqual(completed('6 * 7 = 42'));
    const streamed = await app.request('/agents/echo/stream', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: 'a b' }),
    });
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await streamed.text()).toContain('event: done');
  });

  it("serves the default agent's SDK card at the root, and another's with ?agent=", async () => {
    const headers = { 'a2a-version': '1.0' };
    const root = (await (
      await app.request('/.well-known/agent-card.json', { headers })
    ).json()) as {
      name: string;
      supportedInterfaces: Array<{ url: string }>;
    };
    expect(root.name).toBe('assistant');
    expect(root.supportedInterfaces[0]?.url).toBe(`${base}/a2a/assistant/jsonrpc`);
    const echo = (await (
      await app.request('/.well-known/agent-card.json?agent=echo', { headers })
    ).json()) as { name: string };
    expect(echo.name).toBe('echo');
    const missing = await app.request('/.well-known/agent-card.json?agent=nobody');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'agent_not_found' } });
    // An empty name is the caller's mistake, not an agent named ''.
    const empty = await app.request('/.well-known/agent-card.json?agent=');
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({
      error: { code: 'invalid_input', message: 'Invalid query parameter agent: must not be empty' },
    });
  });

  it('serves the compat surface under /compat', async () => {
    const response = await app.request('/compat/agents');
    const agents = (await response.json()) as Array<{ name: string }>;
    // Compat lists its AgentDefs sorted by name.
    expect(agents.map((agent) => agent.name)).toEqual(['assistant', 'booking', 'echo', 'ticker']);
  });

  it('answers unknown routes 404 and wrong methods 405 with Allow, in the JSON error shape', async () => {
    const missing = await app.request('/nope');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'not_found' } });
    const wrong = await app.request('/healthz', { method: 'POST' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
  });

  it('passes a request id through, or makes one', async () => {
    const given = await app.request('/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await app.request('/healthz');
    expect(made.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
  });

  it('answers A2A SendMessage with a Task, or with a Message when a2aReplyWith is message', async () => {
    const send = (target: ReturnType<typeof gateway>) => sendMessage(target.app, 'echo', 'hi');
    const task = (await (await send(gateway())).json()) as { result: Record<string, unknown> };
    expect(Object.keys(task.result)).toEqual(['task']);
    const replied = (await (await send(gateway({ a2aReplyWith: 'message' }))).json()) as {
      result: { message?: { role: string; parts: Array<{ text?: string }> } };
    };
    expect(replied.result.message).toMatchObject({ role: 'ROLE_AGENT', parts: [{ text: 'hi' }] });
  });

  it('bounds the runs of each agent with maxConcurrency, one limit for both A2A surfaces', async () => {
    // Runs hold until released, so the first one keeps the only slot.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = defineAgent({
      name: 'slow',
      async *run(input) {
        await held;
        yield { type: 'text-delta', delta: input };
      },
    });
    const target = gateway({ agents: [slow], defaultAgent: 'slow', maxConcurrency: 1 });
    const sendAtOnce = async (text: string) => {
      const answer = await sendMessage(target.app, 'slow', text, { returnImmediately: true });
      const { result } = (await answer.json()) as {
        result: { task: { status: { state: string } } };
      };
      return result.task.status.state;
    };
    const createTask = async (input: string) => {
      const answer = await target.app.request(`${base}/agents/slow/tasks`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ input }),
      });
      return ((await answer.json()) as { task: { status: string } }).task.status;
    };
    try {
      expect(await sendAtOnce('first')).toBe('TASK_STATE_WORKING');
      expect(await sendAtOnce('second')).toBe('TASK_STATE_SUBMITTED');
      // Both surfaces run the agent's tasks in one runner: the only slot is taken.
      await createTask('third');
      await new Promise((resolve) => setTimeout(resolve, 10));
      const tasks = await target.app.request(`${base}/agents/slow/tasks`);
      const listed = ((await tasks.json()) as { tasks: Array<{ status: string }> }).tasks;
      expect(listed.map((task) => task.status)).toEqual(['submitted', 'submitted', 'working']);
    } finally {
      release();
      await target.shutdown();
    }
  });

  it('limits request bodies with maxBodyBytes on every surface, the official SDK one included', async () => {
    const limited = gateway({ maxBodyBytes: 400 });
    const over = JSON.stringify({ input: 'x'.repeat(400) });
    const message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'x'.repeat(400) }] };
    const posts: Array<[string, string]> = [
      ['/agents/echo/invoke', over],
      ['/agents/echo/tasks', over],
      ['/compat/runs', JSON.stringify({ agent_name: 'echo', input: 'x'.repeat(400) })],
      [
        '/a2a/echo/jsonrpc',
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
      ],
      ['/a2a/echo/rest/message:send', JSON.stringify({ message })],
    ];
    for (const [path, body] of posts) {
      const answer = await limited.app.request(`${base}${path}`, {
        method: 'POST',
        headers: { ...json, 'A2A-Version': '1.0' },
        body,
      });
      expect([path, answer.status]).toEqual([path, 413]);
    }
    // Without the option, the SDK surface takes what the others take (1 MiB), not its own 100 KiB.
    const large = await sendMessage(app, 'echo', 'x'.repeat(200 * 1024));
    expect(large.status).toBe(200);
  });

  it('refuses an unknown default agent', () => {
    expect(() => gateway({ defaultAgent: 'nobody' })).toThrow(/nobody/);
  });

  it('refuses a handoff target, however deep, named as a served agent but another one', () => {
    const helper = () =>
      defineAgent({
        name: 'helper',
        async *run() {
          yield { type: 'text-delta', delta: 'local' };
        },
      });
    const boss = (target: ReturnType<typeof helper>) =>
      defineAgent({
        name: 'boss',
        handoffs: [defineAgent({ name: 'middle', handoffs: [target], async *run() {} })],
        async *run() {},
      });
    expect(() => gateway({ agents: [boss(helper()), helper()], defaultAgent: 'boss' })).toThrow(
      "'middle' hands off to an agent named 'helper' that is not the served 'helper'",
    );
    // The served agent itself, as the built-in assistant hands off to the served echo.
    const served = helper();
    void gateway({ agents: [boss(served), served], defaultAgent: 'boss' }).shutdown();
  });
});

describe('a trailing slash', () => {
  const { app } = gateway();

  it('names the same route on every surface, as on Express', async () => {
    const rpc = await app.request('/a2a/echo/jsonrpc/', {
      method: 'POST',
      headers: { ...json, 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'none' } }),
    });
    expect(await rpc.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32001 } });
    const card = await app.request('/a2a/echo/.well-known/agent-card.json/');
    expect(card.status).toBe(200);
    expect((await card.json()).name).toBeDefined();
    const agent = await app.request('/agents/echo/');
    expect((await agent.json()).name).toBe('echo');
    const invoke = await app.request('/agents/echo/invoke/', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: 'slash' }),
    });
    expect(await invoke.json()).toEqual(completed('slash'));
    const created = await app.request('/agents/echo/tasks/?wait=5', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: 'slash' }),
    });
    expect(created.status).toBe(201);
    const { task } = await created.json();
    expect(task.output).toBe('slash');
    expect(created.headers.get('location')).toBe(`/agents/echo/tasks/${task.id}`);
  });

  it('leaves the hand-rolled cards pointing at their endpoint', async () => {
    for (const path of ['/.well-known/agent.json', '/agents/echo/.well-known/agent.json']) {
      const plain = await (await app.request(path)).json();
      const slashed = await (await app.request(`${path}/`)).json();
      expect(slashed.endpoint, path).toBe(plain.endpoint);
      expect(plain.endpoint, path).not.toContain('.well-known');
    }
  });
});

describe('OpenAPI', () => {
  const { app } = gateway();

  it('covers every registered route', async () => {
    const document = (await (await app.request('/openapi.json')).json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(document.openapi).toBe('3.1.0');
    const routes = documentedRoutes(app, createBuiltinAgents());
    expect(routes.length).toBeGreaterThan(60);
    for (const { method, path } of routes) {
      expect(document.paths[toOpenApiPath(path)], `${method} ${path}`).toHaveProperty(
        method.toLowerCase(),
      );
    }
    for (const route of listRoutes(app)) expect(routes).toContainEqual(route);
  });

  it('documents request bodies from the schemas that validate them', async () => {
    const document = (await (await app.request('/openapi.json')).json()) as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>
      >;
    };
    const invoke =
      document.paths['/agents/echo/invoke']?.post?.requestBody?.content['application/json']?.schema;
    // A string, or a list of parts.
    const parts = { type: 'array', items: { oneOf: expect.any(Array) } };
    expect(invoke).toMatchObject({
      type: 'object',
      properties: { input: { anyOf: [{ type: 'string' }, parts] } },
      required: ['input'],
    });
    const run =
      document.paths['/compat/runs']?.post?.requestBody?.content['application/json']?.schema;
    expect(run).toMatchObject({ properties: { agent_name: { type: 'string' } } });
    const task = document.paths['/tasks']?.post?.requestBody?.content['application/json']?.schema;
    expect(task).toMatchObject({ properties: { input: { anyOf: [{ type: 'string' }, parts] } } });
  });

  it('has a route behind every documented operation, answering a media type it documents', async () => {
    const document = (await (await app.request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content: object }> }>>;
    };
    const samples: Record<string, string> = { name: 'echo' };
    for (const [path, operations] of Object.entries(document.paths)) {
      const url = path.replace(/\{(\w+)\}/g, (_match, name: string) => samples[name] ?? 'missing');
      for (const [method, operation] of Object.entries(operations)) {
        // The v0.3 routes are there for v0.3 callers only.
        const versions: Array<Record<string, string>> = path.includes('/rest/v1/')
          ? [{}]
          : [{}, { 'A2A-Version': '1.0' }];
        for (const version of versions) {
          const init: RequestInit =
            method === 'post'
              ? { method: 'POST', headers: { ...json, ...version }, body: '{}' }
              : { method: method.toUpperCase(), headers: version };
          const response = await app.request(url, init);
          const text = await response.text();
          const where = `${method} ${path} ${response.status}`;
          expect(text, where).not.toContain('No route for');
          expect(response.status, where).not.toBe(405);
          // A success is documented under its own status.
          if (response.ok) {
            expect(Object.keys(operation.responses), where).toContain(String(response.status));
          }
          const documented =
            operation.responses[String(response.status)]?.content ??
            (operation.responses.default as { content: object }).content;
          const type = (response.headers.get('content-type') ?? '').split(';')[0];
          expect(Object.keys(documented), where).toContain(type);
        }
      }
    }
  });

  it('marks the public operations as needing no key when keys are on', async () => {
    const secured = gateway({ apiKeys: [KEY] }).app;
    const document = (await (await secured.request('/openapi.json')).json()) as {
      security: unknown[];
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    expect(document.security).toHaveLength(2);
    for (const path of [
      '/healthz',
      '/readyz',
      '/openapi.json',
      '/docs',
      '/.well-known/agent.json',
    ]) {
      expect(document.paths[path]?.get?.security, path).toEqual([]);
    }
    expect(document.paths['/agents/echo/.well-known/agent.json']?.get?.security).toEqual([]);
    expect(document.paths['/a2a/echo/.well-known/agent-card.json']?.get?.security).toEqual([]);
    expect(document.paths['/agents/echo/invoke']?.post?.security).toBeUndefined();
    // And they are public indeed.
    expect((await secured.request('/docs')).status).toBe(200);
  });

  it('documents the A2A binding actions and the task routes as they answer', async () => {
    const document = (await (await app.request('/openapi.json')).json()) as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, unknown>; parameters?: unknown[] }>
      >;
    };
    const paths = Object.keys(document.paths);
    for (const path of [
      '/a2a/echo/rest/message:send',
      '/a2a/echo/rest/message:stream',
      '/a2a/echo/rest/tasks/{taskId}:cancel',
      '/a2a/echo/rest/tasks/{taskId}:subscribe',
      '/a2a/echo/rest/v1/tasks/{taskId}:cancel',
    ]) {
      expect(paths).toContain(path);
    }
    expect(paths.some((path) => path.includes('{action}'))).toBe(false);
    expect(document.paths['/a2a/echo/rest/tasks/{taskId}']).not.toHaveProperty('post');
    // The v0.3 binding answers a sent message with 201, and says so.
    const sent = await app.request('/a2a/echo/rest/v1/message:send', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        message: { messageId: 'm-1', role: 'ROLE_USER', content: [{ text: 'hi' }] },
        configuration: { blocking: true },
      }),
    });
    expect(sent.status).toBe(201);
    expect(
      Object.keys(document.paths['/a2a/echo/rest/v1/message:send']?.post?.responses ?? {}),
    ).toEqual(['201', 'default']);
    const create = document.paths['/agents/echo/tasks']?.post;
    expect(Object.keys(create?.responses ?? {})).toEqual(['201', 'default']);
    expect(create?.parameters).toContainEqual(
      expect.objectContaining({ name: 'wait', in: 'query', required: false }),
    );
    const list = document.paths['/tasks']?.get?.parameters ?? [];
    expect(list.map((parameter) => (parameter as { name: string }).name)).toEqual([
      'limit',
      'cursor',
      'status',
    ]);
    expect(document.paths['/tasks/{id}']?.get?.parameters).toContainEqual(
      expect.objectContaining({ name: 'wait', in: 'query' }),
    );
    // Numbers in the query are documented with the range the server holds them to.
    expect(list[0]).toMatchObject({
      schema: { type: 'integer', minimum: 1, maximum: 100 },
    });
    expect(create?.parameters?.[0]).toMatchObject({ schema: { type: 'number', minimum: 0 } });
    for (const [limit, status] of [
      ['0', 400],
      ['1.5', 400],
      ['101', 400],
      ['100', 200],
    ] as const) {
      expect((await app.request(`/tasks?limit=${limit}`)).status, limit).toBe(status);
    }
    expect((await app.request('/tasks/none?wait=-1')).status).toBe(400);
  });

  it('documents each surface with the error body it answers', async () => {
    const document = (await (await app.request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses: { default: { content: unknown } } }>>;
    };
    const errorOf = (path: string, method: string) => {
      const content = document.paths[path]?.[method]?.responses.default.content ?? {};
      return (content as Record<string, { schema: { required: string[] } }>)['application/json']
        ?.schema.required;
    };
    expect(errorOf('/agents/echo/invoke', 'post')).toEqual(['error']);
    expect(errorOf('/a2a/echo/jsonrpc', 'post')).toEqual(['jsonrpc', 'id', 'error']);
    expect(errorOf('/a2a/echo/rest/message:send', 'post')).toEqual(['error']);
    expect(errorOf('/a2a/echo/rest/v1/message:send', 'post')).toEqual(['code', 'message']);
    // The bodies the binding really sends have the documented shape.
    const missing = await app.request('/a2a/echo/rest/tasks/none', {
      headers: { 'A2A-Version': '1.0' },
    });
    expect(Object.keys((await missing.json()).error)).toEqual(
      expect.arrayContaining(['code', 'status', 'message']),
    );
    const legacy = await app.request('/a2a/echo/rest/v1/tasks/none');
    expect(Object.keys(await legacy.json())).toEqual(expect.arrayContaining(['code', 'message']));
  });

  it("names the public URL's path as the server, for tools behind a prefix proxy", async () => {
    const served = async (target: ReturnType<typeof gateway>) =>
      (await (await target.app.request('/openapi.json')).json()) as { servers?: unknown };
    expect((await served(gateway())).servers).toBeUndefined();
    const behindProxy = gateway({ publicUrl: 'https://agents.example.com/gw' });
    expect((await served(behindProxy)).servers).toEqual([{ url: '/gw' }]);
  });

  it('renders the document as a web page at /docs', async () => {
    const response = await app.request('/docs');
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('/agents/echo/invoke');
    // From the root, so that it holds under `/docs/` too (a relative link would be /docs/openapi.json).
    expect(html).toContain('<a href="/openapi.json">');
    const behindProxy = gateway({ publicUrl: 'https://agents.example.com/gw' }).app;
    expect(await (await behindProxy.request('/docs/')).text()).toContain(
      '<a href="/gw/openapi.json">',
    );
  });
});

describe('auth', () => {
  const { app } = gateway({ apiKeys: [KEY] });

  it('answers 401 with WWW-Authenticate without a key', async () => {
    const response = await app.request('/agents/echo/invoke', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: 'x' }),
    });
    expect(response.status).toBe(401);
    // RFC 6750 3.1: no error code when no credentials were sent; invalid_token for a wrong one.
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="agentport"');
    expect(await response.json()).toEqual({
      error: { code: 'unauthorized', message: 'An API key is required' },
    });
    const wrong = await app.request('/compat/agents', {
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.headers.get('www-authenticate')).toBe(
      'Bearer realm="agentport", error="invalid_token"',
    );
  });

  it.each([
    ['two bearer tokens', ['Bearer one-key-0123456789', 'Bearer two-key-0123456789']],
    ['no token', ['Bearer']],
    ['a token with spaces', ['Bearer one two']],
  ])('refuses a malformed bearer credential (%s) as an invalid key', async (_, values) => {
    const headers = new Headers();
    for (const value of values) headers.append('authorization', value);
    const response = await app.request('/compat/agents', { headers });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="agentport", error="invalid_token"',
    );
    expect(await response.json()).toEqual({
      error: { code: 'unauthorized', message: 'Invalid API key' },
    });
  });

  it('treats another scheme as no API key', async () => {
    const response = await app.request('/compat/agents', {
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
    });
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="agentport"');
  });

  it('accepts a valid key in either header, even beside a wrong one in the other', async () => {
    for (const headers of [
      { 'x-api-key': 'stale-key-stale-key', authorization: `Bearer ${KEY}` },
      { 'x-api-key': KEY, authorization: 'Bearer stale-key-stale-key' },
    ]) {
      expect((await app.request('/compat/agents', { headers })).status).toBe(200);
    }
  });

  it('asks for a key on OPTIONS too when CORS is off (there is no preflight to answer)', async () => {
    for (const path of ['/agents/echo/invoke', '/agents/nobody/invoke', '/a2a/echo/jsonrpc']) {
      const response = await app.request(path, { method: 'OPTIONS' });
      expect(response.status, path).toBe(401);
    }
    const allowed = await app.request('/agents/echo/invoke', {
      method: 'OPTIONS',
      headers: { 'x-api-key': KEY },
    });
    expect(allowed.status).toBe(405);
  });

  it('refuses a wrong key without echoing it', async () => {
    const response = await app.request('/compat/agents', {
      headers: { 'x-api-key': 'wrong-key-wrong-key' },
    });
    expect(response.status).toBe(401);
    expect(await response.text()).not.toContain('wrong-key');
  });

  it.each([
    ['x-api-key', KEY],
    ['authorization', `Bearer ${KEY}`],
  ])('accepts the key in %s', async (header, value) => {
    const response = await app.request('/compat/agents', { headers: { [header]: value } });
    expect(response.status).toBe(200);
  });

  it.each([
    '/healthz',
    '/readyz',
    '/openapi.json',
    '/docs',
    '/.well-known/agent.json',
    '/.well-known/agent-card.json',
    '/agents/echo/.well-known/agent.json',
    '/a2a/echo/.well-known/agent-card.json',
  ])('leaves %s public', async (path) => {
    expect((await app.request(path)).status).toBe(200);
  });

  it.each(['/agents/echo/.well-known/agent-card.json', '/a2a/echo/.well-known/agent.json'])(
    'asks for a key on %s, a card path no surface serves',
    async (path) => {
      expect((await app.request(path)).status).toBe(401);
    },
  );

  it('advertises the security scheme in the OpenAPI document', async () => {
    const document = (await (await app.request('/openapi.json')).json()) as Record<string, unknown>;
    expect(document).toMatchObject({
      components: { securitySchemes: { bearer: { scheme: 'bearer' } } },
    });
  });
});

describe('CORS', () => {
  it('is off by default', async () => {
    const response = await gateway().app.request('/healthz', {
      headers: { origin: 'http://site.test' },
    });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows the configured origins and answers preflight even with auth on', async () => {
    const { app } = gateway({ cors: ['http://site.test'], apiKeys: [KEY] });
    const preflight = await app.request('/agents/echo/invoke', {
      method: 'OPTIONS',
      headers: { origin: 'http://site.test', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://site.test');
    // The methods some route answers, not Hono's default list (PUT, PATCH, QUERY...).
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET,HEAD,POST,DELETE');
  });

  it('asks for a key on an OPTIONS that is not a preflight', async () => {
    const { app } = gateway({ cors: ['http://site.test'], apiKeys: [KEY] });
    const plain = await app.request('/agents/echo/invoke', {
      method: 'OPTIONS',
      headers: { origin: 'http://site.test' },
    });
    expect(plain.status).toBe(401);
    const withKey = await app.request('/agents/echo/invoke', {
      method: 'OPTIONS',
      headers: { origin: 'http://site.test', 'x-api-key': KEY },
    });
    expect(withKey.status).toBe(405);
  });

  it("lets a page read a created task's Location and the request id", async () => {
    const { app } = gateway({ cors: ['http://site.test'] });
    const created = await app.request('/agents/echo/tasks', {
      method: 'POST',
      headers: { ...json, origin: 'http://site.test' },
      body: JSON.stringify({ input: 'hi' }),
    });
    expect(created.status).toBe(201);
    const exposed = created.headers.get('access-control-expose-headers')?.split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['X-Request-Id', 'Location']));
  });

  it("lets a page read a stream's conversation and where it is rejoined", async () => {
    const { app } = gateway({ cors: ['http://site.test'] });
    const streamed = await app.request('/agents/echo/stream', {
      method: 'POST',
      headers: { ...json, origin: 'http://site.test' },
      body: JSON.stringify({ input: 'hi' }),
    });
    expect(streamed.headers.get('context-id')).toEqual(expect.any(String));
    const exposed = streamed.headers.get('access-control-expose-headers')?.split(/,\s*/);
    expect(exposed).toEqual(
      expect.arrayContaining(['Content-Location', 'Context-Id', 'Conversation-Id']),
    );
    await streamed.text();
  });
});

describe('failure log', () => {
  const secret = 'db password rejected';
  const broken = defineAgent({
    name: 'broken',
    async *run(input) {
      if (input === 'bad') throw new InvalidInputError('bad input');
      yield { type: 'text-delta', delta: 'partial' };
      throw new Error(secret);
    },
  });

  it('logs each failed run with its cause on every surface, and never tells the caller', async () => {
    const { lines, destination } = collectLines();
    const { app } = gateway({
      agents: [...createBuiltinAgents(), broken],
      logger: pino({ base: undefined }, destination),
    });
    const post = (path: string, body: unknown) =>
      app.request(path, { method: 'POST', headers: json, body: JSON.stringify(body) });
    const answers = [
      await post('/agents/broken/invoke', { input: 'x' }),
      await post('/agents/broken/stream', { input: 'x' }),
      await post('/agents/broken/tasks?wait=5', { input: 'x' }),
      await post('/compat/runs', { agent_name: 'broken', input: 'x' }),
      await sendMessage(app, 'broken', 'x'),
    ];
    const texts = await Promise.all(answers.map((answer) => answer.text()));
    for (const text of texts) expect(text).not.toContain(secret);
    const failures = lines.map((line) => JSON.parse(line)).filter((entry) => entry.agent);
    expect(failures).toHaveLength(5);
    for (const entry of failures) {
      expect(entry).toMatchObject({ level: 50, agent: 'broken', code: 'agent_failure' });
      expect(entry.msg).toBe('agent run failed');
      expect(entry.err.message).toBe(secret);
      expect(entry.err.stack).toContain('Error');
    }
    // A caller's bad input is answered, not logged as a failure.
    expect((await post('/agents/broken/invoke', { input: 'bad' })).status).toBe(400);
    expect(lines.map((line) => JSON.parse(line)).filter((entry) => entry.agent)).toHaveLength(5);
  });

  it('logs the failures of a handoff target served on compat only', async () => {
    const { lines, destination } = collectLines();
    const helper = defineAgent({
      name: 'helper',
      // biome-ignore lint/correctness/useYield: fails before its first event
      async *run() {
        throw new Error(secret);
      },
    });
    const router = defineAgent({ name: 'router', handoffs: [helper], async *run() {} });
    const { app } = gateway({
      agents: [...createBuiltinAgents(), router],
      logger: pino({ base: undefined }, destination),
    });
    const run = await app.request('/compat/runs', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ agent_name: 'helper', input: 'x' }),
    });
    expect(await run.text()).not.toContain(secret);
    const failures = lines.map((line) => JSON.parse(line)).filter((entry) => entry.agent);
    expect(failures).toMatchObject([{ agent: 'helper', err: { message: secret } }]);
  });
});

describe('shutdown', () => {
  it('answers readyz 503 and refuses new work with shutting_down, health stays up', async () => {
    const running = gateway();
    await running.shutdown();
    expect(running.shuttingDown).toBe(true);
    expect((await running.app.request('/readyz')).status).toBe(503);
    expect((await running.app.request('/healthz')).status).toBe(200);
    const refused = await running.app.request('/agents/echo/invoke', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: 'x' }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('connection')).toBe('close');
    expect(await refused.json()).toMatchObject({ error: { code: 'shutting_down' } });
    expect((await running.app.request('/healthz')).headers.get('connection')).toBe('close');
  });

  it('closes the connection of an answer still in flight when shutdown begins', async () => {
    const running = gateway();
    const pending = running.app.request('/agents/ticker/invoke', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: '2 every 20ms' }),
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const stopping = running.shutdown();
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('connection')).toBe('close');
    await stopping;
    const before = gateway();
    const kept = await before.app.request('/healthz');
    expect(kept.headers.get('connection')).toBeNull();
  });
});
