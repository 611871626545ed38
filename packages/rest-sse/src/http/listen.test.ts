import { createServer } from 'node:net';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { type ListenAddress, ListenError, listen } from './listen.ts';

const app = new Hono().get('/ping', (context) => context.text('pong'));

function start(options: { shutdownTimeoutMs?: number; port?: number } = {}) {
  const controller = new AbortController();
  let resolveAddress: (address: ListenAddress) => void = () => undefined;
  const address = new Promise<ListenAddress>((resolve) => {
    resolveAddress = resolve;
  });
  const stopped = listen(app, { ...options, signal: controller.signal, onListen: resolveAddress });
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
    const controller = new AbortController();
    const urls: string[] = [];
    const stopped = listen(slow, {
      signal: controller.signal,
      shutdownTimeoutMs: 2000,
      onListen: ({ url }) => urls.push(url),
    });
    await expect.poll(() => urls.length).toBe(1);
    const pending = fetch(`${urls[0]}/slow`).then((response) => response.text());
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
    const controller = new AbortController();
    const urls: string[] = [];
    const stopped = listen(hanging, {
      signal: controller.signal,
      shutdownTimeoutMs: 50,
      onListen: ({ url }) => urls.push(url),
    });
    await expect.poll(() => urls.length).toBe(1);
    const pending = fetch(`${urls[0]}/hang`).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    controller.abort();
    await stopped;
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await pending).toBeInstanceOf(Error);
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
