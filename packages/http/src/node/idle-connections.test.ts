import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { servedPerTest } from '../testing/serve.ts';
import { closeIdleConnectionsAfter, closeMarginOf, sweepIntervalOf } from './idle-connections.ts';
import { listen } from './listen.ts';

const app = new Hono().get('/ping', (context) => context.text('pong'));
/** How long the tests wait for what the server does, and how often they look. */
const POLL = { timeout: 5_000, interval: 5 };
const REQUEST = 'GET /ping HTTP/1.1\r\nHost: localhost\r\n\r\n';

const served = servedPerTest();
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

/** Serves `app` with `listen`'s options, Node requests and responses reported to `seen`. */
async function start(
  options: { keepAliveTimeoutMs?: number; answerAfterMs?: number } = {},
  seen: { request?: IncomingMessage; response?: ServerResponse } = {},
): Promise<number> {
  const { answerAfterMs } = options;
  const url = await served({
    listen: (listenOptions) =>
      listen(app, {
        ...listenOptions,
        ...(options.keepAliveTimeoutMs === undefined
          ? {}
          : { keepAliveTimeoutMs: options.keepAliveTimeoutMs }),
        handleNode: (request, response) => {
          seen.request = request;
          seen.response = response;
          if (answerAfterMs === undefined) return false;
          setTimeout(() => response.end('late'), answerAfterMs);
          return true;
        },
      }),
  });
  return Number(new URL(url).port);
}

/** A raw connection: what the server wrote so far, and when it closed (undefined while open). */
function open(port: number) {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  const state = { text: '', closedAt: undefined as number | undefined, socket };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    state.text += chunk;
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    state.closedAt = performance.now();
  });
  return state;
}

describe('listen: idle keep-alive connections', () => {
  it('advertises Keep-Alive: timeout=5 as Node does, with no timer on the connection between requests', async () => {
    const seen: { request?: IncomingMessage; response?: ServerResponse } = {};
    const connection = open(await start({}, seen));
    connection.socket.write(REQUEST);
    await expect.poll(() => connection.text.endsWith('pong'), POLL).toBe(true);
    expect(connection.text).toMatch(/\r\nKeep-Alive: timeout=5\r\n/);
    const response = seen.response as ServerResponse;
    if (!response.writableFinished) await once(response, 'finish');
    await sleep(1);
    // Node's own keep-alive timer would stand at 6,000 ms here (its 5 s and 1 s of margin).
    expect(seen.request?.socket.timeout).toBeUndefined();
    expect(connection.closedAt).toBeUndefined();
  });

  it('closes a kept-alive connection once it has waited past keepAliveTimeoutMs, not before', async () => {
    const connection = open(await start({ keepAliveTimeoutMs: 200 }));
    connection.socket.write(REQUEST);
    await expect.poll(() => connection.text.endsWith('pong'), POLL).toBe(true);
    const answeredAt = performance.now();
    await sleep(150);
    expect(connection.closedAt).toBeUndefined();
    await expect.poll(() => connection.closedAt !== undefined, POLL).toBe(true);
    expect((connection.closedAt as number) - answeredAt).toBeGreaterThanOrEqual(200);
    // Advertised in whole seconds, as Node does.
    expect(connection.text).toMatch(/\r\nKeep-Alive: timeout=0\r\n/);
  });

  it('keeps a connection whose answer takes longer than keepAliveTimeoutMs', async () => {
    const connection = open(await start({ keepAliveTimeoutMs: 100, answerAfterMs: 400 }));
    connection.socket.write(REQUEST);
    await expect.poll(() => connection.text.endsWith('late'), POLL).toBe(true);
    expect(connection.text).toMatch(/^HTTP\/1\.1 200 OK/);
  });

  it('keeps a connection whose request trickles in, as long as every piece comes within the timeout', async () => {
    const connection = open(await start({ keepAliveTimeoutMs: 300 }));
    // Ten pieces 50 ms apart: 500 ms in all.
    for (const piece of REQUEST.match(/[\s\S]{1,4}/g) ?? []) {
      connection.socket.write(piece);
      await sleep(50);
    }
    await expect.poll(() => connection.text.endsWith('pong'), POLL).toBe(true);
    expect(connection.closedAt).toBeUndefined();
  });

  it('closes a connection that never sends a request', async () => {
    const connection = open(await start({ keepAliveTimeoutMs: 100 }));
    await once(connection.socket, 'connect');
    const connectedAt = performance.now();
    await expect.poll(() => connection.closedAt !== undefined, POLL).toBe(true);
    expect((connection.closedAt as number) - connectedAt).toBeGreaterThanOrEqual(100);
    expect(connection.text).toBe('');
  });

  it('keeps idle connections open and advertises no timeout with keepAliveTimeoutMs 0', async () => {
    const connection = open(await start({ keepAliveTimeoutMs: 0 }));
    connection.socket.write(REQUEST);
    await expect.poll(() => connection.text.endsWith('pong'), POLL).toBe(true);
    expect(connection.text).not.toMatch(/Keep-Alive:/i);
    await sleep(300);
    expect(connection.closedAt).toBeUndefined();
  });

  it('forgets a connection as soon as it closes, not at its next sweep', async () => {
    const server = createServer({ keepAliveTimeout: 0 }, (_request, response) => response.end());
    const sweep = closeIdleConnectionsAfter(server, 60_000);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    try {
      const connection = open(port);
      await expect.poll(() => sweep.watched, POLL).toBe(1);
      connection.socket.end();
      // Quiet, it would be closed and forgotten only after 61 s.
      await expect.poll(() => sweep.watched, { timeout: 300, interval: 5 }).toBe(0);
    } finally {
      sweep.stop();
      server.closeAllConnections();
      server.close();
    }
  });

  it('starts no sweep when listening fails', async () => {
    const port = await start();
    const setInterval = vi.spyOn(globalThis, 'setInterval');
    try {
      await expect(listen(app, { port })).rejects.toThrow(/already in use/);
      expect(setInterval).not.toHaveBeenCalled();
    } finally {
      setInterval.mockRestore();
    }
  });

  it('refuses a keepAliveTimeoutMs that is not a number >= 0', async () => {
    for (const keepAliveTimeoutMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(listen(app, { keepAliveTimeoutMs })).rejects.toThrow(
        /keepAliveTimeoutMs must be a number >= 0/,
      );
    }
  });

  it("looks at connections a fiftieth of the timeout apart, from 10 to 100 ms, and keeps Node's margin", () => {
    expect(sweepIntervalOf(5_000)).toBe(100);
    expect(sweepIntervalOf(60_000)).toBe(100);
    expect(sweepIntervalOf(1_000)).toBe(20);
    expect(sweepIntervalOf(200)).toBe(10);
    expect(closeMarginOf(5_000)).toBe(1_000);
    expect(closeMarginOf(60_000)).toBe(1_000);
    expect(closeMarginOf(200)).toBe(40);
  });
});
