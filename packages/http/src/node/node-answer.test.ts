import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchingServerResponse } from './batching-response.ts';
import { hasPlainJsonBody, writeAnswer } from './node-answer.ts';

/** A node:http server on 127.0.0.1 whose requests go to `handle`; closed after each test. */
let servers: ReturnType<typeof createServer>[] = [];

async function serve(
  handle: (response: ServerResponse) => void,
  options: ServerOptions = {},
): Promise<string> {
  const server = createServer(options, (request, response) => {
    request.resume();
    request.on('end', () => handle(response));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  servers = [];
  vi.useRealTimers();
});

/** A POST on its own connection: its status and body, or the error of a connection cut off. */
function post(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { method: 'POST', agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    sent.on('error', reject);
    sent.end('{}');
  });
}

const afterImmediate = () => new Promise((resolve) => setImmediate(resolve));

describe('hasPlainJsonBody', () => {
  const requestWith = (headers: IncomingMessage['headers']) => ({ headers }) as IncomingMessage;

  it.each([
    ['application/json', true],
    ['application/json; charset=UTF-8', true],
    ['application/json; charset="utf8"', true],
    ['application/json; charset=iso-8859-1', false],
    ['application/json; charset=utf-16', false],
    ['text/plain', false],
  ])('leaves a body declared as %s to the Hono route unless it is UTF-8 JSON', (type, plain) => {
    const request = requestWith({ 'content-type': type, 'content-length': '13' });
    expect(hasPlainJsonBody(request, 100)).toBe(plain);
  });
});

describe('writeAnswer', () => {
  it('writes the answer once the event loop has read what is ready, not at once', async () => {
    const seen: { sentAtOnce: boolean; sentAfterMicrotasks: boolean; sentAfterTurn: boolean }[] =
      [];
    const url = await serve((response) => {
      writeAnswer(response, 201, { 'content-type': 'application/json' }, '{"ok":true}', {
        'x-request-id': 'r1',
      });
      const sentAtOnce = response.headersSent;
      process.nextTick(() =>
        queueMicrotask(() => {
          const sentAfterMicrotasks = response.headersSent;
          setImmediate(() =>
            seen.push({ sentAtOnce, sentAfterMicrotasks, sentAfterTurn: response.writableEnded }),
          );
        }),
      );
    });
    const answer = await post(url);
    expect(answer).toEqual({ status: 201, body: '{"ok":true}' });
    expect(seen).toEqual([{ sentAtOnce: false, sentAfterMicrotasks: false, sentAfterTurn: true }]);
  });

  it('ends a BatchingServerResponse at once: it holds the bytes itself (no second turn)', async () => {
    const endedAtOnce: boolean[] = [];
    const url = await serve(
      (response) => {
        writeAnswer(response, 200, {}, '{"ok":true}', undefined);
        endedAtOnce.push(response.writableEnded);
      },
      { ServerResponse: BatchingServerResponse },
    );
    expect(await post(url)).toEqual({ status: 200, body: '{"ok":true}' });
    expect(endedAtOnce).toEqual([true]);
  });

  it('writes the answers of one turn while a test fakes setImmediate (it uses node:timers)', async () => {
    vi.useFakeTimers({ toFake: ['setImmediate', 'setTimeout'] });
    let waiting: ServerResponse[] = [];
    const url = await serve((response) => {
      waiting.push(response);
      if (waiting.length < 2) return;
      for (const [index, each] of waiting.entries()) {
        writeAnswer(each, 200, {}, `{"n":${index}}`, undefined);
      }
      waiting = [];
    });
    const answers = await Promise.all([post(url), post(url)]);
    expect(answers.map((answer) => answer.body).sort()).toEqual(['{"n":0}', '{"n":1}']);
  });

  it('skips an answer whose caller left before it was due and still writes the others', async () => {
    const waiting: ServerResponse[] = [];
    let leftEnded: boolean | undefined;
    const errors: unknown[] = [];
    const url = await serve((response) => {
      response.on('error', (error) => errors.push(error));
      waiting.push(response);
      if (waiting.length < 2) return;
      const [left, staying] = waiting as [ServerResponse, ServerResponse];
      writeAnswer(left, 200, {}, '{"to":"left"}', undefined);
      writeAnswer(staying, 200, {}, '{"to":"staying"}', undefined);
      left.destroy();
      setImmediate(() => {
        leftEnded = left.writableEnded;
      });
    });
    const [first, second] = await Promise.allSettled([post(url), post(url)]);
    const bodies = [first, second].map((settled) =>
      settled.status === 'fulfilled' ? settled.value.body : 'cut off',
    );
    expect(bodies.sort()).toEqual(['cut off', '{"to":"staying"}']);
    await afterImmediate();
    expect(leftEnded).toBe(false);
    expect(errors).toEqual([]);
  });

  it('answers Connection: close once the server has stopped listening, keep-alive before', async () => {
    let closeFirst = false;
    const url = await serve((response) => {
      if (closeFirst) (response.socket as unknown as { server: Server }).server.close();
      writeAnswer(response, 200, {}, '{}', undefined);
    });
    const agent = new Agent({ keepAlive: true });
    const connectionHeader = () =>
      new Promise<string | undefined>((resolve, reject) => {
        const sent = httpRequest(url, { method: 'POST', agent }, (response) => {
          response.resume();
          response.on('end', () => resolve(response.headers.connection));
        });
        sent.on('error', reject);
        sent.end('{}');
      });
    try {
      expect(await connectionHeader()).toBe('keep-alive');
      closeFirst = true;
      expect(await connectionHeader()).toBe('close');
    } finally {
      agent.destroy();
    }
  });

  it('ends the connection, without throwing, when Node refuses the head', async () => {
    const url = await serve((response) => {
      writeAnswer(response, 200, { 'x-bad': 'line\nbreak' }, '{}', undefined);
    });
    await expect(post(url)).rejects.toThrow();
  });
});
