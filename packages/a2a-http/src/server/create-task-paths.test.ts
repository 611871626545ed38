import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Agent, Task } from '@agentport/core';
import { createBookingAgent, createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { listen } from '@agentport/http/node';
import { type SentRequest, sendRequest } from '@agentport/http/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { failingAgent } from '../testing/failing-agent.ts';
import { type Served, serve } from '../testing/serve.ts';
import { type A2AHttpServer, createA2AHttpServer } from './create-a2a-http-server.ts';

const served: Served[] = [];

afterEach(async () => {
  await Promise.all(served.splice(0).map((server) => server.stop()));
});

interface Answer {
  status: number;
  contentType: string | undefined;
  location: string | undefined;
  connection: string | undefined;
  body: unknown;
}

const ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const STAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;

/** Ids and timestamps differ between two servers; everything else must not. */
function mask(text: string): string {
  return text.replace(ID, '<id>').replace(STAMP, '<time>');
}

async function send(base: string, sent: SentRequest): Promise<Answer> {
  const { status, headers, text } = await sendRequest(base, sent);
  return {
    status,
    contentType: headers['content-type']?.toLowerCase(),
    location: headers.location && mask(headers.location),
    connection: headers.connection,
    body: text === '' ? undefined : JSON.parse(mask(text)),
  };
}

/** Serves an app with `listen` and a `handleNode` fast path; resolves with its URL. */
async function listenWith(
  server: A2AHttpServer,
  handleNode: (request: IncomingMessage, response: ServerResponse) => boolean,
): Promise<string> {
  const controller = new AbortController();
  let url = '';
  const stopped = listen(server.app, {
    signal: controller.signal,
    onListen: (address) => {
      url = address.url;
    },
    handleNode,
  });
  while (url === '') await new Promise((resolve) => setTimeout(resolve, 5));
  served.push({
    url,
    port: 0,
    stop: async () => {
      controller.abort();
      await stopped;
    },
  });
  return url;
}

/** Serves a server through `handleNode` (each result recorded) and its twin through Hono alone. */
async function startBoth(agent: Agent) {
  const server = createA2AHttpServer({ agent, maxBodyBytes: 100 });
  const taken: boolean[] = [];
  const url = await listenWith(server, (request, response) => {
    const result = server.handleNode(request, response);
    taken.push(result);
    return result;
  });
  const viaHono = await serve(createA2AHttpServer({ agent, maxBodyBytes: 100 }).app);
  served.push(viaHono);
  return { fast: url, hono: viaHono.url, taken, server };
}

const cases: Array<[string, SentRequest, boolean]> = [
  ['a create', { path: '/tasks', body: '{"input":"hi"}' }, true],
  ['a create and wait', { path: '/tasks?wait=5', body: '{"input":"hi there"}' }, true],
  [
    'a create with metadata',
    { path: '/tasks?wait=5', body: '{"input":"hi","metadata":{"trace":"t-1"}}' },
    true,
  ],
  ['a zero wait', { path: '/tasks?wait=0', body: '{"input":"hi"}' }, true],
  ['malformed JSON', { path: '/tasks?wait=5', body: '{"input"' }, true],
  ['a body with a byte-order mark', { path: '/tasks?wait=5', body: '\uFEFF{"input":"bom"}' }, true],
  ['a missing input', { path: '/tasks', body: '{"metadata":{}}' }, true],
  ['metadata that is not an object', { path: '/tasks', body: '{"input":"x","metadata":3}' }, true],
  [
    'metadata nested too deep',
    {
      path: '/tasks?wait=5',
      body: `{"input":"x","metadata":{"a":${'['.repeat(33)}${']'.repeat(33)}}}`,
    },
    true,
  ],
  ['a malformed wait', { path: '/tasks?wait=soon', body: '{"input":"hi"}' }, true],
  ['a hexadecimal wait', { path: '/tasks?wait=0x10', body: '{"input":"hi"}' }, true],
  ['an empty wait', { path: '/tasks?wait=', body: '{"input":"hi"}' }, true],
  ['a fractional wait', { path: '/tasks?wait=0.5', body: '{"input":"hi"}' }, true],
  [
    'a body that is not JSON',
    { path: '/tasks', headers: { 'content-type': 'text/plain' }, body: 'hi' },
    false,
  ],
  [
    'a declared body over the limit',
    { path: '/tasks', body: `{"input":"${'x'.repeat(100)}"}` },
    false,
  ],
  ['a chunked body', { path: '/tasks?wait=5', body: '{"input":"hi"}', chunked: true }, false],
  [
    'a create with parts',
    { path: '/tasks?wait=5', body: '{"input":[{"kind":"text","text":"hi"}]}' },
    true,
  ],
  [
    'a create with a contextId',
    { path: '/tasks?wait=5', body: '{"input":"hi","contextId":"c-1"}' },
    true,
  ],
  ['malformed parts', { path: '/tasks', body: '{"input":[{"kind":"video"}]}' }, true],
  ['a message for an unknown task', { path: '/tasks/nope/messages', body: '{"input":"hi"}' }, true],
  [
    'a message with malformed parts',
    { path: '/tasks/nope/messages?wait=5', body: '{"input":[{"text":"hi"}]}' },
    true,
  ],
  ['a message with a malformed wait', { path: '/tasks/x/messages?wait=no', body: '{}' }, true],
  ['a message on a longer path', { path: '/tasks/a/b/messages', body: '{"input":"hi"}' }, false],
  ['a message without an id', { path: '/tasks//messages', body: '{"input":"hi"}' }, false],
  ['a list', { method: 'GET', path: '/tasks' }, false],
  ['a trailing slash', { path: '/tasks/', body: '{"input":"hi"}' }, false],
  ['another route', { path: '/tasks/x/cancel', body: '{}' }, false],
];

describe('handleNode: POST /tasks answered on Node without Hono', () => {
  it.each(cases)('answers %s as the Hono route does', async (_name, sent, expectTaken) => {
    const { fast, hono, taken } = await startBoth(createEchoAgent());
    const [viaNode, viaHono] = await Promise.all([send(fast, sent), send(hono, sent)]);
    expect(viaNode).toEqual(viaHono);
    expect(taken).toEqual([expectTaken]);
  });

  it('answers each query of a series as the Hono route does (a repeated query is parsed once)', async () => {
    const { fast, hono, taken } = await startBoth(createEchoAgent());
    const queries = [
      'wait=5',
      'wait=5',
      'wait=soon',
      'wait=0',
      'wait=soon',
      'wait=5&x=1',
      'wait=5',
    ];
    for (const query of queries) {
      const sent = { path: `/tasks?${query}`, body: '{"input":"hi"}' };
      const [viaNode, viaHono] = await Promise.all([send(fast, sent), send(hono, sent)]);
      expect(viaNode).toEqual(viaHono);
    }
    // A malformed wait is refused by the create action itself, the same on both paths.
    expect(taken).toEqual([true, true, true, true, true, true, true]);
  });

  it('answers each turn of a booking conversation as the Hono routes do', async () => {
    const { fast, hono, taken } = await startBoth(createBookingAgent());
    const created = { path: '/tasks?wait=5', body: '{"input":"a table"}' };
    const [first, firstOnHono] = await Promise.all([send(fast, created), send(hono, created)]);
    expect(first).toEqual(firstOnHono);
    expect(first.body).toMatchObject({ task: { status: 'input-required' } });
    const ids = await Promise.all(
      [fast, hono].map(async (url) => {
        const { text } = await sendRequest(url, { method: 'GET', path: '/tasks' });
        return JSON.parse(text).tasks[0].id as string;
      }),
    );
    for (const input of ['4', '19:30']) {
      const body = JSON.stringify({ input });
      const [viaNode, viaHono] = await Promise.all([
        send(fast, { path: `/tasks/${ids[0]}/messages?wait=5`, body }),
        send(hono, { path: `/tasks/${ids[1]}/messages?wait=5`, body }),
      ]);
      expect(viaNode).toEqual(viaHono);
      expect(viaNode.status).toBe(200);
    }
    expect(taken).toEqual([true, false, true, true]);
  });

  it('answers a failed task as the Hono route does', async () => {
    const { fast, hono, taken } = await startBoth(failingAgent);
    const sent = { path: '/tasks?wait=5', body: '{"input":"x"}' };
    const [viaNode, viaHono] = await Promise.all([send(fast, sent), send(hono, sent)]);
    expect(viaNode).toEqual(viaHono);
    expect(viaNode.body).toMatchObject({ task: { status: 'failed' } });
    expect(taken).toEqual([true]);
  });

  it('answers 201 with the finished task and its Location under the mount point', async () => {
    const server = createA2AHttpServer({ agent: createEchoAgent() });
    const url = await listenWith(
      server,
      (request, response) =>
        request.url?.startsWith('/agents/echo/') === true &&
        server.handleNode(request, response, request.url.slice(12), { 'x-request-id': 'r-1' }),
    );
    const response = await fetch(`${url}/agents/echo/tasks?wait=5`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"input":"hello"}',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-request-id')).toBe('r-1');
    const { task } = await response.json();
    expect(task).toMatchObject({ status: 'completed', output: 'hello' });
    expect(response.headers.get('location')).toBe(`/agents/echo/tasks/${task.id}`);
    expect((await server.runner.get(task.id)).status).toBe('completed');
  });

  it('answers a message under the mount point on the Node path', async () => {
    const server = createA2AHttpServer({ agent: createBookingAgent() });
    const taken: boolean[] = [];
    const url = await listenWith(server, (request, response) => {
      const result =
        request.url?.startsWith('/agents/booking/') === true &&
        server.handleNode(request, response, request.url.slice(15));
      taken.push(result);
      return result;
    });
    const post = async (path: string, input: string) => {
      const response = await fetch(`${url}/agents/booking${path}?wait=5`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input }),
      });
      return { status: response.status, ...((await response.json()) as { task: Task }) };
    };
    const { task } = await post('/tasks', 'hi');
    expect((await post(`/tasks/${task.id}/messages`, '7')).task.status).toBe('input-required');
    const done = await post(`/tasks/${task.id}/messages`, '07:45');
    expect(done).toMatchObject({ status: 200, task: { output: 'Booked a table for 7 at 07:45.' } });
    expect(taken).toEqual([true, true, true]);
  });

  it("puts the public URL's path before Location, on the Node path and the Hono route alike", async () => {
    const agent = createEchoAgent();
    const publicUrl = 'https://agents.example.com/gw/';
    const fast = createA2AHttpServer({ agent, publicUrl });
    const url = await listenWith(fast, (request, response) => fast.handleNode(request, response));
    const viaHono = await serve(createA2AHttpServer({ agent, publicUrl }).app);
    served.push(viaHono);
    const sent = { path: '/tasks?wait=5', body: '{"input":"hi"}' };
    const [viaNode, hono] = await Promise.all([send(url, sent), send(viaHono.url, sent)]);
    expect(viaNode.location).toBe('/gw/tasks/<id>');
    expect(hono.location).toBe('/gw/tasks/<id>');
    expect(() => createA2AHttpServer({ agent, publicUrl: 'agents.example.com' })).toThrow(
      /publicUrl must be an absolute URL/,
    );
  });

  it('cancels the task when the caller leaves its long-poll', async () => {
    const { fast, server } = await startBoth(createTickerAgent());
    const controller = new AbortController();
    const call = fetch(`${fast}/tasks?wait=30`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"input":"5 every 10s"}',
      signal: controller.signal,
    }).catch(() => undefined);
    let listed = await server.runner.list();
    while (listed.tasks[0]?.status !== 'working') {
      await new Promise((resolve) => setTimeout(resolve, 5));
      listed = await server.runner.list();
    }
    controller.abort();
    await call;
    const id = listed.tasks[0]?.id as string;
    while ((await server.runner.get(id)).status === 'working') {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect((await server.runner.get(id)).status).toBe('canceled');
  });

  it.each([
    ['on Node', true],
    ['through Hono', false],
  ])(
    'answers a pending long-poll with the canceled task and Connection: close on shutdown, %s',
    async (_name, viaNode) => {
      const server = createA2AHttpServer({ agent: createTickerAgent() });
      const url = await listenWith(server, (request, response) =>
        viaNode ? server.handleNode(request, response) : false,
      );
      const pending = send(url, { path: '/tasks?wait=60', body: '{"input":"5 every 10s"}' });
      while ((await server.runner.list()).tasks[0]?.status !== 'working') {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await server.close();
      const answer = await pending;
      expect(answer.status).toBe(201);
      expect(answer.connection).toBe('close');
      expect(answer.body).toMatchObject({ task: { status: 'canceled' } });
    },
  );

  it('leaves creates to the app once the server stops taking tasks (503)', async () => {
    const { fast, server, taken } = await startBoth(createEchoAgent());
    await server.close();
    const answer = await send(fast, { path: '/tasks', body: '{"input":"hi"}' });
    expect(answer.status).toBe(503);
    expect(taken).toEqual([false]);
  });

  it.each([
    ['on Node', true],
    ['through Hono', false],
  ])(
    'answers 503 and makes no task when the server stops taking tasks while the body comes in, %s',
    async (_name, viaNode) => {
      const server = createA2AHttpServer({ agent: createEchoAgent() });
      let arrived!: () => void;
      const taken = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const url = await listenWith(server, (request, response) => {
        arrived();
        return viaNode && server.handleNode(request, response);
      });
      const body = '{"input":"late"}';
      const request = httpRequest(`${url}/tasks?wait=5`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      });
      const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
        request.on('response', (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        });
        request.on('error', reject);
      });
      request.flushHeaders();
      // The headers are in and the create is taken; the body comes once the server has closed.
      await taken;
      await server.close();
      request.end(body);
      const answer = await answered;
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'shutting_down' } });
      expect((await server.runner.list()).tasks).toEqual([]);
    },
  );

  it('is what its own listen serves creates with', async () => {
    const server: A2AHttpServer = createA2AHttpServer({ agent: createEchoAgent() });
    const honoFetch = server.app.fetch;
    let throughHono = 0;
    server.app.fetch = (...args) => {
      throughHono += 1;
      return honoFetch(...args);
    };
    const running = await serve(server);
    served.push(running);
    const answer = await send(running.url, { path: '/tasks?wait=5', body: '{"input":"hi"}' });
    expect(answer.body).toMatchObject({ task: { status: 'completed', output: 'hi' } });
    expect(throughHono).toBe(0);
    await fetch(`${running.url}/.well-known/agent.json`);
    expect(throughHono).toBe(1);
  });
});
