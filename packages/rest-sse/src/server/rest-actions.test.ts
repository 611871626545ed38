import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { createMemoryTaskStore, createTaskRunner } from '@agentport/core';
import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { StreamRuns } from '@agentport/http/internal';
import { type FetchApp, type ListenOptions, listen, nodeAction } from '@agentport/http/node';
import {
  createBrokenAgent,
  createMistypedAgent,
  createUnserialisableAgent,
  createWaitingAgent,
  parseSSE,
  type SentRequest,
  sendRequest,
  serve,
  type TestServer,
} from '@agentport/http/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { streamAction } from './rest-actions.ts';
import { createRestServer, type RestServer } from './rest-server.ts';

const servers: TestServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface Answer {
  status: number;
  contentType: string | undefined;
  allow: string | undefined;
  body: unknown;
}

async function send(base: string, sent: SentRequest): Promise<Answer> {
  const { status, headers, text } = await sendRequest(base, sent);
  const contentType = headers['content-type'];
  return {
    status,
    contentType: contentType?.toLowerCase(),
    allow: headers.allow,
    body:
      text === ''
        ? undefined
        : contentType?.startsWith('text/event-stream')
          ? text
          : withoutContextId(JSON.parse(text)),
  };
}

/** An invoke's answer with its (new, random) contextId named alike, for answers to compare. */
function withoutContextId(body: unknown): unknown {
  const answer = body as { contextId?: unknown } | null;
  return typeof answer?.contextId === 'string' ? { ...answer, contextId: 'new' } : body;
}

/** What an invoke answers when the agent completes with `result`, in a new conversation. */
function completed(result: string) {
  return { result, contextId: 'new', status: 'completed' };
}

function createServer(): RestServer {
  return createRestServer({ maxBodyBytes: 64 })
    .register('echo', createEchoAgent())
    .register('demo/ticker', createTickerAgent())
    .register('broken', createBrokenAgent())
    .register('mistyped', createMistypedAgent(42))
    .register('unserialisable', createUnserialisableAgent(10n));
}

/** Serves an app (or a RestServer through its own `listen`) until the test ends; its URL. */
async function start(
  target: RestServer | FetchApp,
  handleNode?: ListenOptions['handleNode'],
): Promise<string> {
  const running = await serve((options) =>
    'register' in target
      ? target.listen(options)
      : listen(target, { ...options, ...(handleNode === undefined ? {} : { handleNode }) }),
  );
  servers.push(running);
  return running.url;
}

/** The same server twice: through `handleNode` (counted) and through the Hono app alone. */
async function startBoth(): Promise<{ fast: string; hono: string; taken: boolean[] }> {
  const server = createServer();
  const taken: boolean[] = [];
  const handleNode = server.handleNode.bind(server);
  server.handleNode = (...args) => {
    const result = handleNode(...args);
    taken.push(result);
    return result;
  };
  return { fast: await start(server), hono: await start(createServer().app), taken };
}

const cases: Array<[string, SentRequest, boolean]> = [
  ['a call', { path: '/echo/invoke', body: '{"input":"hello world"}' }, true],
  ['a nested name', { path: '/demo/ticker/invoke', body: '{"input":"1 every 1ms"}' }, true],
  ['malformed JSON', { path: '/echo/invoke', body: '{"input":' }, true],
  ['a body with a byte-order mark', { path: '/echo/invoke', body: '\uFEFF{"input":"bom"}' }, true],
  ['an empty input', { path: '/echo/invoke', body: '{"input":""}' }, true],
  ['a body that is not an object', { path: '/echo/invoke', body: '[1]' }, true],
  ['a failing agent', { path: '/broken/invoke', body: '{"input":"x"}' }, true],
  [
    'an agent whose result is not a string',
    { path: '/mistyped/invoke', body: '{"input":"x"}' },
    true,
  ],
  [
    'a JSON subtype with parameters',
    {
      path: '/echo/invoke',
      headers: { 'content-type': 'application/vnd.api+json; charset=utf-8' },
      body: '{"input":"x"}',
    },
    true,
  ],
  [
    'a JSON body declared as UTF-8 in other words',
    {
      path: '/echo/invoke',
      headers: { 'content-type': 'application/json; Charset="UTF8"' },
      body: '{"input":"x"}',
    },
    true,
  ],
  [
    'a JSON body in a charset other than UTF-8',
    {
      path: '/echo/invoke',
      headers: { 'content-type': 'application/json; charset=iso-8859-1' },
      body: '{"input":"x"}',
    },
    false,
  ],
  [
    'a JSON stream in a charset other than UTF-8',
    {
      path: '/echo/stream',
      headers: { 'content-type': 'application/json; charset=utf-16' },
      body: '{"input":"x"}',
    },
    false,
  ],
  [
    'a body that is not JSON',
    { path: '/echo/invoke', headers: { 'content-type': 'text/plain' }, body: 'x' },
    false,
  ],
  ['an unknown agent', { path: '/nobody/invoke', body: '{"input":"x"}' }, false],
  [
    'a declared body over the limit',
    { path: '/echo/invoke', body: `{"input":"${'x'.repeat(80)}"}` },
    false,
  ],
  ['a chunked body', { path: '/echo/invoke', body: '{"input":"chunked"}', chunked: true }, false],
  [
    'a chunked body over the limit',
    { path: '/echo/invoke', body: `{"input":"${'x'.repeat(80)}"}`, chunked: true },
    false,
  ],
  ['a query string', { path: '/echo/invoke?x=1', body: '{"input":"x"}' }, false],
  ['another method', { method: 'PUT', path: '/echo/invoke', body: '{"input":"x"}' }, false],
  ['a stream', { path: '/echo/stream', body: '{"input":"one two three"}' }, true],
  [
    'a stream of a nested name',
    { path: '/demo/ticker/stream', body: '{"input":"2 every 1ms"}' },
    true,
  ],
  [
    'a stream whose agent refuses its input',
    { path: '/demo/ticker/stream', body: '{"input":"soon"}' },
    true,
  ],
  ['a stream whose agent fails', { path: '/broken/stream', body: '{"input":"x"}' }, true],
  [
    'a stream with an event that cannot be serialised',
    { path: '/unserialisable/stream', body: '{"input":"x"}' },
    true,
  ],
  ['a stream with malformed JSON', { path: '/echo/stream', body: '{"input' }, true],
  [
    'a stream with a byte-order mark',
    { path: '/echo/stream', body: '\uFEFF{"input":"a b"}' },
    true,
  ],
  ['a stream with an empty input', { path: '/echo/stream', body: '{"input":""}' }, true],
  ['a stream of an unknown agent', { path: '/nobody/stream', body: '{"input":"x"}' }, false],
  ['a chunked stream', { path: '/echo/stream', body: '{"input":"a b"}', chunked: true }, false],
];

describe('handleNode: invoke and stream calls answered on Node without Hono', () => {
  it.each(cases)('answers %s as the Hono route does', async (_name, sent, expectTaken) => {
    const { fast, hono, taken } = await startBoth();
    const [viaNode, viaHono] = await Promise.all([send(fast, sent), send(hono, sent)]);
    expect(viaNode).toEqual(viaHono);
    expect(taken).toEqual([expectTaken]);
  });

  it('answers with the agent result and hides a failure cause', async () => {
    const { fast } = await startBoth();
    expect(await send(fast, { path: '/echo/invoke', body: '{"input":"hi there"}' })).toEqual({
      status: 200,
      contentType: 'application/json',
      allow: undefined,
      body: completed('hi there'),
    });
    const failed = await send(fast, { path: '/broken/invoke', body: '{"input":"x"}' });
    expect(failed.status).toBe(500);
    expect(JSON.stringify(failed.body)).not.toContain('hunter2');
  });

  it('answers 500 agent_failure when the agent resolves to something other than a string', async () => {
    const { fast } = await startBoth();
    expect(await send(fast, { path: '/mistyped/invoke', body: '{"input":"x"}' })).toEqual({
      status: 500,
      contentType: 'application/json; charset=utf-8',
      allow: undefined,
      body: { error: { code: 'agent_failure', message: "Agent 'mistyped' failed" } },
    });
  });

  it('numbers the error event right after the last event when an event cannot be serialised', async () => {
    const { fast } = await startBoth();
    const answer = await send(fast, { path: '/unserialisable/stream', body: '{"input":"x"}' });
    const { events } = parseSSE(answer.body as string);
    expect(events.map((event) => [event.event, event.id])).toEqual([
      ['text-delta', '3'],
      ['error', '4'],
    ]);
    expect(JSON.parse(events[1]?.data ?? '')).toMatchObject({ code: 'agent_failure' });
  });

  it('leaves streams to the app with directNodeStreaming off', async () => {
    const server = createRestServer({ directNodeStreaming: false }).register(
      'echo',
      createEchoAgent(),
    );
    const request = {
      method: 'POST',
      url: '/echo/stream',
      headers: { 'content-type': 'application/json', 'content-length': '13' },
    } as unknown as IncomingMessage;
    expect(server.handleNode(request, {} as ServerResponse)).toBe(false);
  });

  it("sends the headers it is given in a stream's head", async () => {
    const server = createServer();
    const url = await start(server.app, (request, response) =>
      server.handleNode(request, response, request.url, { 'x-request-id': 'abc' }),
    );
    const response = await fetch(`${url}/echo/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"input":"a b"}',
    });
    expect(response.headers.get('x-request-id')).toBe('abc');
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await response.text()).toContain('event: done');
  });

  it('adds the headers it is given, on answers and errors', async () => {
    const server = createServer();
    const url = await start(server.app, (request, response) =>
      server.handleNode(request, response, request.url, { 'x-request-id': 'abc' }),
    );
    for (const body of ['{"input":"x"}', '{bad']) {
      const response = await fetch(`${url}/echo/invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(response.headers.get('x-request-id')).toBe('abc');
    }
  });

  it('takes a path under a mount point', async () => {
    const server = createServer();
    const seen: boolean[] = [];
    const url = await start(
      { fetch: () => Response.json({ not: 'here' }, { status: 418 }) },
      (request, response) => {
        const path = request.url?.startsWith('/agents/') ? request.url.slice(7) : undefined;
        const taken = path !== undefined && server.handleNode(request, response, path);
        seen.push(taken);
        return taken;
      },
    );
    const answer = await send(url, { path: '/agents/echo/invoke', body: '{"input":"x"}' });
    expect(answer.body).toEqual(completed('x'));
    expect((await send(url, { path: '/echo/invoke', body: '{"input":"x"}' })).status).toBe(418);
    expect(seen).toEqual([true, false]);
  });

  it('aborts the agent when the caller goes away', async () => {
    const waiting = createWaitingAgent();
    const server = createRestServer().register('waiter', waiting.agent);
    const url = await start(server);
    const controller = new AbortController();
    const call = fetch(`${url}/waiter/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"input":"x"}',
      signal: controller.signal,
    }).catch(() => undefined);
    while (waiting.started() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await call;
    // The agent's signal listener gets the abort event.
    expect(await waiting.aborted).toMatchObject({ type: 'abort' });
  });

  it('survives a caller who leaves in the middle of the body', async () => {
    const server = createServer();
    const url = await start(server);
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /echo/invoke HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        'Content-Length: 40\r\n\r\n{"input":',
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const answer = await send(url, {
      path: '/echo/invoke',
      body: '{"input":"still here"}',
    });
    expect(answer.body).toEqual(completed('still here'));
  });

  it('ends the connection, not the process, when Node refuses a header of the answer', async () => {
    const server = createServer();
    const url = await start(server.app, (request, response) =>
      server.handleNode(request, response, request.url, {
        'x-bad': request.headers['x-mode'] === 'bad' ? 'a\r\nb' : 'ok',
      }),
    );
    const call = { path: '/echo/invoke', body: '{"input":"x"}' };
    await expect(send(url, { ...call, headers: { 'x-mode': 'bad' } })).rejects.toThrow();
    expect((await send(url, call)).body).toEqual(completed('x'));
  });

  it('starts no stream, throws nothing and cancels the task, for a caller gone as its body arrived', async () => {
    const request = new EventEmitter() as unknown as IncomingMessage;
    const gone = { destroyed: true, writableEnded: true } as unknown as ServerResponse;
    const store = createMemoryTaskStore();
    const runs = new StreamRuns(store, 60_000, new AbortController().signal);
    const agent = createEchoAgent();
    const runnerOf = () => createTaskRunner({ agent, store });
    nodeAction(streamAction(agent, runnerOf, runs, 1024, {}))(request, gone);
    request.emit('data', Buffer.from('{"input":"x"}'));
    expect(() => request.emit('end')).not.toThrow();
    await vi.waitFor(async () => {
      expect((await store.list()).tasks.map((task) => task.status)).toEqual(['canceled']);
    });
  });

  it('leaves every call to the app once the server is shutting down', async () => {
    const server = createServer();
    server.close();
    const fakeRequest = {
      method: 'POST',
      url: '/echo/invoke',
      headers: { 'content-type': 'application/json', 'content-length': '13' },
    } as unknown as IncomingMessage;
    expect(server.handleNode(fakeRequest, {} as ServerResponse)).toBe(false);
    const url = await start(server);
    const answer = await send(url, { path: '/echo/invoke', body: '{"input":"x"}' });
    expect(answer.status).toBe(503);
  });

  it('falls back to the app when a fast path throws before taking the request', async () => {
    const url = await start(createServer().app, () => {
      throw new Error('not today');
    });
    const answer = await send(url, { path: '/echo/invoke', body: '{"input":"x"}' });
    expect(answer.body).toEqual(completed('x'));
  });
});
