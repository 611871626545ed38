import { createServer, type Socket } from 'node:net';
import { createEchoAgent } from '@agentport/core/agents';
import { listen } from '@agentport/http/node';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createBuiltinAgents } from './builtin-agents.ts';
import type { GatewayConfig } from './config.ts';
import { createGateway, type Gateway, type GatewayOptions } from './gateway.ts';
import { resolveAgents } from './resolve-agents.ts';
import { completed } from './testing/invoke-answer.ts';
import { collectLines } from './testing/log-lines.ts';
import { readEvents } from './testing/sse.ts';

// A gateway configured with remote agents on a port where nothing listens yet: it starts, answers
// 503 remote_unavailable for them on every surface, then serves them once they can be reached.

const stops: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

/** A port nothing listens on (one the system just gave out and took back). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Serves a gateway on a real socket (through `handleNode`, whose answers are counted). */
async function serveGateway(gateway: Gateway, port = 0) {
  const taken: boolean[] = [];
  const controller = new AbortController();
  let url = '';
  const stopped = listen(gateway.app, {
    port,
    signal: controller.signal,
    shutdownTimeoutMs: 200,
    onListen: (address) => {
      url = address.url;
    },
    handleNode: (request, response) => {
      const result = gateway.handleNode(request, response);
      taken.push(result);
      return result;
    },
  });
  while (url === '') await new Promise((resolve) => setTimeout(resolve, 5));
  const stop = async () => {
    await gateway.shutdown();
    controller.abort();
    await stopped;
  };
  stops.push(stop);
  return { url, taken, stop };
}

/** The gateway of `agentport serve` for a config, its remotes retried every few ms. */
async function gatewayOf(config: GatewayConfig, options: Partial<GatewayOptions> = {}) {
  const { agents, defaultAgent, unavailableRemotes } = await resolveAgents(config, {
    unreachable: 'defer',
  });
  const gateway = createGateway({
    agents,
    defaultAgent,
    publicUrl: 'http://gateway.test',
    unavailableRemotes,
    remoteRetry: { initialDelayMs: 10, maxDelayMs: 40 },
    ...options,
  });
  stops.push(() => gateway.shutdown());
  return gateway;
}

const json = { 'content-type': 'application/json' };
const post = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { ...json, 'A2A-Version': '1.0' },
  body: JSON.stringify(body),
});
const sendMessage = {
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi there' }] } },
};

/** A request on every surface for the hand-rolled remote `far` and the SDK remote `far-sdk`. */
const SURFACES: Array<[string, string, RequestInit?]> = [
  ['hand-rolled card', '/agents/far/.well-known/agent.json'],
  ['hand-rolled create', '/agents/far/tasks', post({ input: 'hi' })],
  ['hand-rolled list', '/agents/far/tasks'],
  ['hand-rolled get', '/agents/far/tasks/t-1'],
  ['hand-rolled events', '/agents/far/tasks/t-1/events'],
  ['hand-rolled cancel', '/agents/far/tasks/t-1/cancel', { method: 'POST' }],
  ['REST describe', '/agents/far'],
  ['REST invoke', '/agents/far/invoke', post({ input: 'hi' })],
  ['REST stream', '/agents/far/stream', post({ input: 'hi' })],
  ['SDK card', '/a2a/far-sdk/.well-known/agent-card.json'],
  ['SDK JSON-RPC', '/a2a/far-sdk/jsonrpc', post(sendMessage)],
  [
    'SDK HTTP+JSON',
    '/a2a/far-sdk/rest/message:send',
    post({ message: sendMessage.params.message }),
  ],
  ['SDK HTTP+JSON list', '/a2a/far-sdk/rest/tasks'],
  ['root SDK card', '/.well-known/agent-card.json?agent=far-sdk'],
  ['compat definition', '/compat/agents/far'],
  ['compat run', '/compat/runs', post({ agent_name: 'far', input: 'hi' })],
  [
    'compat streamed run',
    '/compat/runs',
    post({ agent_name: 'far-sdk', input: 'hi', stream: true }),
  ],
];

/** The default agent's hand-rolled routes at the root, for a gateway whose default is `far`. */
const ROOT: Array<[string, string, RequestInit?]> = [
  ['root card', '/.well-known/agent.json'],
  ['root create', '/tasks', post({ input: 'hi' })],
  ['root list', '/tasks'],
  ['root get', '/tasks/t-1'],
  ['root SDK card', '/.well-known/agent-card.json'],
];

async function expectUnavailable(response: Response, name: string, where: string) {
  expect(response.status, where).toBe(503);
  expect(Number(response.headers.get('retry-after')), where).toBeGreaterThanOrEqual(1);
  expect(await response.json(), where).toEqual({
    error: {
      code: 'remote_unavailable',
      message: `The remote agent '${name}' is not available yet: try again later`,
    },
  });
}

async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a remote agent unreachable at start', async () => {
  const port = await freePort();
  const remoteUrl = `http://127.0.0.1:${port}`;
  const config: GatewayConfig = {
    remotes: [
      { url: `${remoteUrl}/agents/echo`, kind: 'a2a-http', name: 'far' },
      { url: `${remoteUrl}/a2a/echo`, kind: 'a2a-sdk', name: 'far-sdk' },
    ],
  };
  const { lines, destination } = collectLines();
  const gateway = await gatewayOf(config, { logger: pino({ level: 'info' }, destination) });
  const rooted = await gatewayOf({ ...config, defaultAgent: 'far' });
  const strict = await gatewayOf(config, { requireRemotes: true });

  it('answers 503 remote_unavailable for it on every surface of the app', async () => {
    for (const [where, path, init] of SURFACES) {
      const name = path.includes('far-sdk') || where === 'compat streamed run' ? 'far-sdk' : 'far';
      await expectUnavailable(await gateway.app.request(path, init), name, where);
    }
    for (const [where, path, init] of ROOT) {
      await expectUnavailable(await rooted.app.request(path, init), 'far', where);
    }
    // Other agents are served as ever, and an unknown one is still unknown.
    expect(
      await (await gateway.app.request('/agents/echo/invoke', post({ input: 'a' }))).json(),
    ).toEqual(completed('a'));
    expect((await gateway.app.request('/agents/nobody/invoke', post({ input: 'a' }))).status).toBe(
      404,
    );
    expect((await gateway.app.request('/compat/agents/nobody')).status).toBe(404);
  });

  it('lists it as unavailable at / and GET /agents, and readyz as degraded', async () => {
    const index = (await (await gateway.app.request('/')).json()) as {
      agents: Array<{ name: string; unavailable?: boolean; urls: Record<string, string> }>;
    };
    expect(index.agents.map(({ name, unavailable }) => [name, unavailable])).toEqual([
      ['assistant', undefined],
      ['echo', undefined],
      ['ticker', undefined],
      ['booking', undefined],
      ['far', true],
      ['far-sdk', true],
    ]);
    expect(index.agents[4]?.urls.invoke).toBe('http://gateway.test/agents/far/invoke');
    const listed = (await (await gateway.app.request('/agents')).json()) as {
      agents: Array<{ name: string }>;
    };
    expect(listed.agents.slice(4)).toEqual([
      { name: 'far', tools: [], unavailable: true },
      { name: 'far-sdk', tools: [], unavailable: true },
    ]);
    const ready = await gateway.app.request('/readyz');
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as {
      status: string;
      unavailable: Array<Record<string, string>>;
    };
    expect(body.status).toBe('degraded');
    expect(body.unavailable.map(({ name, url }) => [name, url])).toEqual([
      ['far', `${remoteUrl}/agents/echo`],
      ['far-sdk', `${remoteUrl}/a2a/echo`],
    ]);
    expect(body.unavailable[0]).toEqual({
      name: 'far',
      url: `${remoteUrl}/agents/echo`,
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      lastError: expect.stringContaining('ECONNREFUSED'),
    });
    await expectUnavailable(await strict.app.request('/readyz'), 'far', 'readyz, requireRemotes');
  });

  it('answers the same on the Node fast path, which leaves those requests to the app', async () => {
    const served = await serveGateway(gateway);
    const root = await serveGateway(rooted);
    for (const [path, init] of [
      ['/agents/far/invoke', post({ input: 'hi' })],
      ['/agents/far/stream', post({ input: 'hi' })],
      ['/agents/far/tasks', post({ input: 'hi' })],
      ['/a2a/far-sdk/jsonrpc', post(sendMessage)],
    ] as const) {
      await expectUnavailable(
        await fetch(`${served.url}${path}`, init),
        path.includes('sdk') ? 'far-sdk' : 'far',
        path,
      );
    }
    await expectUnavailable(
      await fetch(`${root.url}/tasks`, post({ input: 'hi' })),
      'far',
      '/tasks',
    );
    expect([...served.taken, ...root.taken]).toEqual([false, false, false, false, false]);
  });

  it('serves it on every surface once it can be reached, as the real remote agent', async () => {
    await serveGateway(
      createGateway({
        agents: createBuiltinAgents(),
        defaultAgent: 'assistant',
        publicUrl: remoteUrl,
      }),
      port,
    );
    for (const waiting of [gateway, rooted, strict]) {
      await until(
        async () =>
          (await waiting.app.request('/readyz')).status === 200 &&
          ((await (await waiting.app.request('/readyz')).json()) as { status: string }).status ===
            'ready',
      );
    }
    const { description } = createEchoAgent();
    const card = (await (
      await gateway.app.request('/agents/far/.well-known/agent.json')
    ).json()) as Record<string, unknown>;
    expect(card).toMatchObject({
      name: 'far',
      description,
      endpoint: 'http://gateway.test/agents/far',
    });
    const sdkCard = await gateway.app.request('/a2a/far-sdk/.well-known/agent-card.json', {
      headers: { 'A2A-Version': '1.0' },
    });
    expect(await sdkCard.json()).toMatchObject({ name: 'far-sdk', description });
    expect(
      await (await gateway.app.request('/agents/far/invoke', post({ input: 'over there' }))).json(),
    ).toEqual(completed('over there'));
    const rpc = (await (
      await gateway.app.request('/a2a/far-sdk/jsonrpc', post(sendMessage))
    ).json()) as { result?: { task?: { status?: { state?: string } } } };
    expect(rpc.result?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
    expect(
      await (
        await gateway.app.request('/compat/runs', post({ agent_name: 'far', input: 'compat' }))
      ).json(),
    ).toMatchObject({ output: 'compat', agent: 'far' });
    const definitions = (await (await gateway.app.request('/compat/agents')).json()) as Array<{
      name: string;
    }>;
    expect(definitions.map(({ name }) => name)).toEqual([
      'assistant',
      'booking',
      'echo',
      'far',
      'far-sdk',
      'ticker',
    ]);
    expect(await (await gateway.app.request('/compat/agents/far')).json()).toEqual({ name: 'far' });
    // In the order they became available.
    const byName = (left: { name: string }, right: { name: string }) =>
      left.name.localeCompare(right.name);
    const listed = (await (await gateway.app.request('/agents')).json()) as {
      agents: Array<{ name: string }>;
    };
    expect(listed.agents.slice(4).sort(byName)).toEqual([
      { name: 'far', description, tools: [] },
      { name: 'far-sdk', description, tools: [] },
    ]);
    expect(await (await gateway.app.request('/agents/far')).json()).toEqual({
      name: 'far',
      description,
      tools: [],
    });
    const index = (await (await gateway.app.request('/')).json()) as {
      agents: Array<Record<string, unknown>>;
    };
    expect(
      index.agents
        .map(({ name, unavailable, description: shown }) => [name, unavailable, shown])
        .slice(4)
        .sort(),
    ).toEqual([
      ['far', undefined, description],
      ['far-sdk', undefined, description],
    ]);
    expect((await rooted.app.request('/.well-known/agent.json')).status).toBe(200);
    expect(gateway.agents.map(({ name }) => name).sort()).toEqual([
      'assistant',
      'booking',
      'echo',
      'far',
      'far-sdk',
      'ticker',
    ]);
    const paths = Object.keys(
      ((await (await gateway.app.request('/openapi.json')).json()) as { paths: object }).paths,
    );
    expect(paths).toContain('/agents/far/invoke');

    // The Node fast path takes its hot routes now.
    const served = await serveGateway(gateway);
    const invoked = await fetch(`${served.url}/agents/far/invoke`, post({ input: 'fast' }));
    expect(await invoked.json()).toEqual(completed('fast'));
    const root = await serveGateway(rooted);
    expect((await fetch(`${root.url}/tasks?wait=5`, post({ input: 'root' }))).status).toBe(201);
    expect([...served.taken, ...root.taken]).toEqual([true, true]);
    // The app composed again streams as the first did, on the Node response (through `app`).
    const streamed = await fetch(
      `${served.url}/compat/runs`,
      post({ agent_name: 'far-sdk', input: 'a b', stream: true }),
    );
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readEvents(streamed);
    expect(JSON.parse(events.at(-1)?.data ?? '')).toMatchObject({ output: 'a b' });
    expect(served.taken.at(-1)).toBe(false);

    const logged = lines.map(
      (line) => JSON.parse(line) as { level: number; msg: string; agent?: string },
    );
    expect(
      logged
        .filter(({ msg }) => msg === 'remote agent available')
        .map(({ level, agent }) => [level, agent])
        .sort(),
    ).toEqual([
      [30, 'far'],
      [30, 'far-sdk'],
    ]);
    expect(
      logged.some(({ level, msg }) => level === 40 && msg === 'remote agent still unavailable'),
    ).toBe(true);
  });
});

describe('a remote agent that accepts connections but never answers', () => {
  it('is deferred once deferAfterMs has passed, not after the card timeout', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    stops.push(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => silent.close(resolve));
    });
    const { port } = silent.address() as { port: number };
    for (const kind of ['a2a-http', 'a2a-sdk'] as const) {
      const started = performance.now();
      const resolved = await resolveAgents(
        { remotes: [{ url: `http://127.0.0.1:${port}/agents/echo`, kind, name: 'mute' }] },
        { unreachable: 'defer', deferAfterMs: 100 },
      );
      expect(
        resolved.unavailableRemotes.map((remote) => remote.name),
        kind,
      ).toEqual(['mute']);
      expect(performance.now() - started, kind).toBeLessThan(5_000);
    }
  });
});
