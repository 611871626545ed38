import { CancellationError, InvalidInputError } from '@agentport/core';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MalformedResponseError } from '../errors/malformed-response-error.ts';
import { RemoteHttpError } from '../errors/remote-http-error.ts';
import { RemoteTimeoutError } from '../errors/remote-timeout-error.ts';
import { RemoteUnreachableError } from '../errors/remote-unreachable-error.ts';
import { type Served, serve } from '../testing/serve.ts';
import { createA2AHttpClient } from './create-a2a-http-client.ts';

const task = {
  id: 't1',
  agentName: 'stub',
  status: 'working',
  input: 'x',
  metadata: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

// A misbehaving remote: every route answers something a client must not trust.
const stub = new Hono();
stub.get('/not-json/.well-known/agent.json', (context) => context.html('<h1>Welcome</h1>'));
stub.get('/bad-card/.well-known/agent.json', (context) =>
  context.json({ name: 'stub', endpoint: 'not a url' }),
);
stub.post('/wrong-shape/tasks', (context) => context.json({ id: 't1', status: 'submitted' }, 201));
stub.get('/wrong-shape/tasks/:id', (context) =>
  context.json({ task: { ...task, status: 'paused' } }),
);
stub.get('/text-error/tasks/:id', (context) => context.text('upstream exploded', 502));
stub.get('/slow/tasks/:id', async (context) => {
  await new Promise((resolve) => context.req.raw.signal.addEventListener('abort', resolve));
  return context.json({ task });
});
stub.get('/headers/tasks/:id', (context) =>
  context.json({ task: { ...task, input: context.req.header('authorization') ?? 'none' } }),
);
stub.get('/no-wait/tasks/:id', (context) => context.json({ task }));
stub.get('/json-events/tasks/:id/events', (context) => context.json({ task }));
stub.get('/error-events/tasks/:id/events', (context) =>
  context.body(
    `event: task\ndata: ${JSON.stringify({ task })}\n\nevent: error\ndata: {"code":"slow_reader","message":"Too slow"}\n\n`,
    200,
    { 'content-type': 'text/event-stream' },
  ),
);

let stubServer: Served;
let closedUrl: string;

beforeAll(async () => {
  stubServer = await serve(stub);
  const closed = await serve(new Hono());
  await closed.stop();
  closedUrl = closed.url;
});

afterAll(async () => {
  await stubServer.stop();
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('client errors', () => {
  it('rejects with RemoteUnreachableError naming the operation when nothing listens', async () => {
    const client = createA2AHttpClient({ baseUrl: closedUrl });
    const error = await failure(client.getCard());
    expect(error).toBeInstanceOf(RemoteUnreachableError);
    expect(error).toMatchObject({ code: 'remote_unreachable', operation: 'getCard', status: 502 });
    expect((error as Error).message).toBe(
      `getCard failed: cannot reach ${closedUrl}/.well-known/agent.json (ECONNREFUSED)`,
    );
    await expect(client.createTask({ input: 'x' })).rejects.toMatchObject({
      operation: 'createTask',
    });
  });

  it('rejects with MalformedResponseError for a body that is not JSON', async () => {
    const error = await failure(
      createA2AHttpClient({ baseUrl: `${stubServer.url}/not-json` }).getCard(),
    );
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as Error).message).toBe(
      'getCard failed: the remote answered a body that is not JSON',
    );
  });

  it('rejects with MalformedResponseError for an invalid card or a wrongly shaped task', async () => {
    const card = await failure(
      createA2AHttpClient({ baseUrl: `${stubServer.url}/bad-card` }).getCard(),
    );
    expect(card).toBeInstanceOf(MalformedResponseError);
    expect((card as Error).message).toContain('endpoint: must be an absolute http(s) URL');

    const client = createA2AHttpClient({ baseUrl: `${stubServer.url}/wrong-shape` });
    const created = await failure(client.createTask({ input: 'x' }));
    expect(created).toMatchObject({ code: 'malformed_response', operation: 'createTask' });
    expect((created as Error).message).toContain('task:');
    const fetched = await failure(client.getTask('t1'));
    expect((fetched as Error).message).toContain('task.status');
  });

  it('rejects with RemoteHttpError carrying the status when the error body is not ours', async () => {
    const error = await failure(
      createA2AHttpClient({ baseUrl: `${stubServer.url}/text-error` }).getTask('t1'),
    );
    expect(error).toBeInstanceOf(RemoteHttpError);
    expect(error).toMatchObject({ httpStatus: 502, remoteCode: undefined });
    expect((error as Error).message).toBe('getTask failed: the remote answered 502');
  });

  it("shows a remote's error code and message without control characters, and capped", () => {
    const remoteMessage = `\u001b[31mred\r\nsecond line ${'x'.repeat(400)}`;
    const error = new RemoteHttpError({
      operation: 'getTask',
      httpStatus: 409,
      remoteCode: `odd\ncode${'c'.repeat(100)}`,
      remoteMessage,
    });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(error.message).toMatch(
      /^getTask failed: the remote answered 409 odd codec{56}\.\.\.: \[31mred second line x+\.\.\.$/,
    );
    expect(error.message.length).toBeLessThan(450);
    // The whole of it stays on the error, for the log.
    expect(error.remoteMessage).toBe(remoteMessage);
  });

  it("shows a server error's code but not its message, which is about the remote's internals", () => {
    const remoteMessage = 'db password=hunter2 at /srv/app.js';
    for (const httpStatus of [500, 503]) {
      const error = new RemoteHttpError({
        operation: 'createTask',
        httpStatus,
        remoteCode: 'internal',
        remoteMessage,
      });
      expect(error.message).toBe(`createTask failed: the remote answered ${httpStatus} internal`);
      expect(error.remoteMessage).toBe(remoteMessage);
    }
  });

  it('rejects with RemoteTimeoutError when the remote does not answer in time', async () => {
    const client = createA2AHttpClient({ baseUrl: `${stubServer.url}/slow`, timeoutMs: 100 });
    const error = await failure(client.getTask('t1'));
    expect(error).toBeInstanceOf(RemoteTimeoutError);
    expect((error as Error).message).toBe(
      `getTask failed: ${stubServer.url}/slow/tasks/t1 did not answer within 100 ms`,
    );
  });

  it('rejects with CancellationError when the caller aborts', async () => {
    const client = createA2AHttpClient({ baseUrl: `${stubServer.url}/slow` });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const error = await failure(client.getTask('t1', { signal: controller.signal }));
    expect(error).toBeInstanceOf(CancellationError);
    expect((error as Error).message).toBe('getTask was canceled');
    const aborted = await failure(client.getCard({ signal: AbortSignal.abort() }));
    expect(aborted).toBeInstanceOf(CancellationError);
  });

  it('sends its configured headers', async () => {
    const client = createA2AHttpClient({
      baseUrl: `${stubServer.url}/headers`,
      headers: { authorization: 'Bearer token-1' },
    });
    expect((await client.getTask('t1')).input).toBe('Bearer token-1');
  });

  it('falls back to polling with backoff against a server that ignores wait', async () => {
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests += 1;
      return fetch(input, init);
    };
    const client = createA2AHttpClient({ baseUrl: `${stubServer.url}/no-wait`, fetch: counting });
    const started = performance.now();
    const current = await client.waitForTask('t1', { timeoutMs: 400 });
    expect(current.status).toBe('working');
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    // 50 + 100 + 200 ms of backoff fit in 400 ms: about four requests, not hundreds.
    expect(requests).toBeGreaterThanOrEqual(3);
    expect(requests).toBeLessThanOrEqual(6);
  });

  it('rejects watchTask when the events route answers JSON, or reports an error event', async () => {
    const json = createA2AHttpClient({ baseUrl: `${stubServer.url}/json-events` }).watchTask('t1');
    const notStream = await failure(json[Symbol.asyncIterator]().next());
    expect(notStream).toBeInstanceOf(MalformedResponseError);
    expect((notStream as Error).message).toContain('instead of an event stream');

    const seen: string[] = [];
    const erroring = async () => {
      for await (const change of createA2AHttpClient({
        baseUrl: `${stubServer.url}/error-events`,
      }).watchTask('t1')) {
        seen.push(change.status);
      }
    };
    const error = await failure(erroring());
    expect(seen).toEqual(['working']);
    expect(error).toMatchObject({ name: 'RemoteHttpError', remoteCode: 'slow_reader' });
  });

  it.each([['not a url'], ['ftp://example.com/agent'], ['http://user:secret@example.com/agent']])(
    'refuses the base URL %s',
    (baseUrl) => {
      expect(() => createA2AHttpClient({ baseUrl })).toThrow(InvalidInputError);
    },
  );
});
