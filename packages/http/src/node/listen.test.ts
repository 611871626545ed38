import type { ServerResponse } from 'node:http';
import { connect, createServer } from 'node:net';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { BatchingServerResponse } from './batching-response.ts';
import { type ListenAddress, ListenError, listen, requestTimers } from './listen.ts';

const app = new Hono().get('/ping', (context) => context.text('pong'));

function start(
  options: { shutdownTimeoutMs?: number; port?: number; requestTimeoutMs?: number } = {},
  served: Parameters<typeof listen>[0] = app,
) {
  const controller = new AbortController();
  let resolveAddress: (address: ListenAddress) => void = () => undefined;
  const address = new Promise<ListenAddress>((resolve) => {
    resolveAddress = resolve;
  });
  const stopped = listen(served, {
    ...options,
    signal: controller.signal,
    onListen: resolveAddress,
  });
  return { controller, address, stopped };
}

/** Whether something accepts connections on the port. */
function isBound(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(true));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

/** Sends raw bytes and resolves with everything the server writes back until it closes. */
function sendRaw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      answer += chunk;
      if (answer.includes('}')) socket.end();
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('listen', () => {
  it('serves the app on 127.0.0.1 and a free port by default', async () => {
    const { controller, address, stopped } = start();
    const { hostname, port, url } = await address;
    expect(hostname).toBe('127.0.0.1');
    expect(port).toBeGreaterThan(0);
    expect(url).toBe(`http://127.0.0.1:${port}`);
    const response = await fetch(`${url}/ping`);
    expect(await response.text()).toBe('pong');
    controller.abort();
    await stopped;
  });

  it('answers every request with a BatchingServerResponse, the Node fast path and the app alike', async () => {
    const kinds: boolean[] = [];
    const controller = new AbortController();
    const listening = new Promise<ListenAddress>((onListen) => {
      void listen(app, {
        signal: controller.signal,
        onListen,
        handleNode: (request, response) => {
          kinds.push(response instanceof BatchingServerResponse);
          if (request.url !== '/fast') return false;
          response.end('fast');
          return true;
        },
      });
    });
    const { url } = await listening;
    expect(await (await fetch(`${url}/fast`)).text()).toBe('fast');
    expect(await (await fetch(`${url}/ping`)).text()).toBe('pong');
    expect(kinds).toEqual([true, true]);
    controller.abort();
  });

  it('answers a request no URL can be made of with a JSON 400 bad_request', async () => {
    const { controller, address, stopped } = start();
    const { port } = await address;
    for (const head of [
      'GET /ping HTTP/1.1\r\nHost: a b',
      'GET /agents\\echo HTTP/1.1\r\nHost: x',
    ]) {
      const answer = await sendRaw(port, `${head}\r\nConnection: close\r\n\r\n`);
      expect(answer, head).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer, head).toMatch(/content-type: application\/json/i);
      expect(answer.slice(answer.indexOf('{')), head).toBe(
        '{"error":{"code":"bad_request","message":"Malformed request: its URL or Host cannot be read"}}',
      );
    }
    controller.abort();
    await stopped;
  });

  it("answers what Node's parser refuses in the JSON error shape, closing the connection", async () => {
    const { controller, address, stopped } = start();
    const { port } = await address;
    const cases = [
      ['NOT HTTP AT ALL\r\n\r\n', 400, 'bad_request'],
      ['GET /ping HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400, 'bad_request'],
      [
        `GET /ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        431,
        'headers_too_large',
      ],
    ] as const;
    for (const [request, status, code] of cases) {
      const answer = await sendRaw(port, request);
      const head = answer.slice(0, answer.indexOf('\r\n\r\n'));
      expect(head, code).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(head, code).toMatch(/\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
      expect(head, code).toMatch(/\r\nconnection: close(\r\n|$)/i);
      const body = answer.slice(head.length + 4);
      expect(head, code).toContain(`Content-Length: ${Buffer.byteLength(body)}`);
      expect(JSON.parse(body), code).toMatchObject({ error: { code } });
    }
    // The server still serves.
    expect(await (await fetch(`http://127.0.0.1:${port}/ping`)).text()).toBe('pong');
    controller.abort();
    await stopped;
  });

  describe('Expect: 100-continue', () => {
    const head = (path: string) =>
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n`;
    const served = new Hono()
      .post('/refuse', (context) => context.json({ error: { code: 'nope' } }, 413))
      .post('/echo', async (context) => context.text(`{${await context.req.text()}}`));

    /** Sends the head, then the body once the server answers 100; resolves with all it wrote. */
    function converse(port: number, path: string): Promise<string> {
      return new Promise((resolve, reject) => {
        let answer = '';
        const socket = connect(port, '127.0.0.1', () => socket.write(head(path)));
        socket.setEncoding('utf8');
        socket.on('data', (chunk) => {
          answer += chunk;
          if (answer === 'HTTP/1.1 100 Continue\r\n\r\n') socket.write('hello');
          if (answer.includes('}')) setTimeout(() => socket.end(), 20);
        });
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    }

    it('sends no 100 before an answer given from the head alone, and closes the connection', async () => {
      const { controller, address, stopped } = start({}, served);
      const { port } = await address;
      const answer = await converse(port, '/refuse');
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).not.toContain('100 Continue');
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      controller.abort();
      await stopped;
    });

    it('sends the 100 when the body is read, on the app and on a Node fast path', async () => {
      const controller = new AbortController();
      const { port } = await new Promise<ListenAddress>((onListen) => {
        void listen(served, {
          signal: controller.signal,
          onListen,
          handleNode: (request, response) => {
            if (request.url !== '/fast') return false;
            let body = '';
            request.setEncoding('utf8');
            request.on('data', (chunk: string) => {
              body += chunk;
            });
            request.on('end', () => response.end(`{${body}}`));
            return true;
          },
        });
      });
      for (const path of ['/echo', '/fast']) {
        const answer = await converse(port, path);
        expect(answer, path).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
        expect(answer.endsWith('{hello}'), path).toBe(true);
      }
      controller.abort();
    });
  });

  it('answers an Expect other than 100-continue with a JSON 417 expectation_failed', async () => {
    const { controller, address, stopped } = start();
    const { port } = await address;
    const answer = await sendRaw(
      port,
      'POST /ping HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 417 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(answer.slice(answer.indexOf('{')))).toEqual({
      error: { code: 'expectation_failed', message: "Unsupported Expect header: '200-ok'" },
    });
    controller.abort();
    await stopped;
  });

  it('answers a request still arriving after requestTimeoutMs with a JSON 408, not an answer that takes long', async () => {
    const slow = new Hono()
      .post('/body', async (context) => context.text(await context.req.text()))
      .post('/late', async (context) => {
        await context.req.text();
        await new Promise((resolve) => setTimeout(resolve, 600));
        return context.text('late');
      })
      // The cut request's body read fails: no error to print.
      .onError((_error, context) => context.text('cut', 500));
    const { controller, address, stopped } = start({ requestTimeoutMs: 200 }, slow);
    const { port, url } = await address;
    const began = performance.now();
    // Two bytes of the ten announced, then nothing.
    const answer = await sendRaw(
      port,
      'POST /body HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nab',
    );
    expect(performance.now() - began).toBeLessThan(2_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(answer.slice(answer.indexOf('{')))).toEqual({
      error: { code: 'request_timeout', message: 'The request was not received in time' },
    });
    // A request that arrived in time may take longer to answer.
    const late = await fetch(`${url}/late`, { method: 'POST', body: 'x' });
    expect(await late.text()).toBe('late');
    controller.abort();
    await stopped;
  });

  it('times requests out after 30 s by default (Node: 300 s), the headers within it too', () => {
    expect(requestTimers()).toEqual({
      requestTimeout: 30_000,
      headersTimeout: 30_000,
      connectionsCheckingInterval: 7_500,
    });
    expect(requestTimers(120_000)).toMatchObject({
      requestTimeout: 120_000,
      headersTimeout: 60_000,
    });
    expect(requestTimers(0)).toEqual({ requestTimeout: 0 });
  });

  it('answers a JSON 500 without the error text when the app throws instead of answering', async () => {
    const controller = new AbortController();
    const url = await new Promise<string>((resolve) => {
      void listen(
        {
          fetch: () => {
            throw new Error('secret detail');
          },
        },
        { signal: controller.signal, onListen: (address) => resolve(address.url) },
      );
    });
    const response = await fetch(`${url}/anything`);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'internal_error' } });
    expect(text).not.toContain('secret');
    controller.abort();
  });

  it('stops when the signal aborts and releases the port', async () => {
    const { controller, address, stopped } = start();
    const { port } = await address;
    expect(await isBound(port)).toBe(true);
    controller.abort();
    await expect(stopped).resolves.toBeUndefined();
    expect(await isBound(port)).toBe(false);
  });

  it('lets an in-flight request finish, then closes its idle connection at once', async () => {
    const slow = new Hono().get('/slow', async (context) => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return context.text('finished');
    });
    const { controller, address, stopped } = start({ shutdownTimeoutMs: 2000 }, slow);
    const { url } = await address;
    const pending = fetch(`${url}/slow`).then((response) => response.text());
    await new Promise((resolve) => setTimeout(resolve, 20));
    const aborted = performance.now();
    controller.abort();
    expect(await pending).toBe('finished');
    await stopped;
    // Well before the 2 s shutdown timeout: the keep-alive connection was not left to linger.
    expect(performance.now() - aborted).toBeLessThan(1000);
  });

  it('force-closes connections still open after the shutdown timeout', async () => {
    const hanging = new Hono().get('/hang', () => new Promise<Response>(() => undefined));
    const { controller, address, stopped } = start({ shutdownTimeoutMs: 50 }, hanging);
    const { url } = await address;
    const pending = fetch(`${url}/hang`).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    controller.abort();
    await stopped;
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await pending).toBeInstanceOf(Error);
  });

  it('resolves only once the responses it force-closed have emitted close', async () => {
    const closed: string[] = [];
    let arrived = 0;
    const hanging = new Hono().get(
      '/hang',
      (context) =>
        new Promise<Response>(() => {
          const { outgoing } = context.env as { outgoing: ServerResponse };
          arrived += 1;
          outgoing.once('close', () => closed.push('response'));
        }),
    );
    const { controller, address, stopped } = start({ shutdownTimeoutMs: 50 }, hanging);
    const { url } = await address;
    const pending = [1, 2].map(() => fetch(`${url}/hang`).catch(() => undefined));
    await expect.poll(() => arrived).toBe(2);
    controller.abort();
    await stopped.then(() => closed.push('stopped'));
    expect(closed).toEqual(['response', 'response', 'stopped']);
    await Promise.all(pending);
  });

  it('does not start when the signal has already aborted', async () => {
    let listened = false;
    await listen(app, { signal: AbortSignal.abort(), onListen: () => (listened = true) });
    expect(listened).toBe(false);
  });

  it('rejects with a ListenError when the port is busy', async () => {
    const first = start();
    const { port } = await first.address;
    const error = await listen(app, { port }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ListenError);
    expect(error).toMatchObject({ code: 'listen_failed', systemCode: 'EADDRINUSE' });
    expect((error as Error).message).toBe(
      `Cannot listen on 127.0.0.1:${port}: the address is already in use`,
    );
    first.controller.abort();
    await first.stopped;
  });

  it('stops at once when the signal aborts while it is starting', async () => {
    const controller = new AbortController();
    const stopped = listen(app, { signal: controller.signal });
    controller.abort();
    await expect(stopped).resolves.toBeUndefined();
  });
});
