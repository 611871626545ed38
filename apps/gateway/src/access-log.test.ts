import { request as httpRequest } from 'node:http';
import { refuseDotSegments } from '@agentport/http';
import { listen } from '@agentport/http/node';
import { Hono } from 'hono';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { accessLog } from './access-log.ts';
import { apiKeyAuth } from './auth.ts';
import { requestIds } from './request-id.ts';
import { collectLines } from './testing/log-lines.ts';

/** Serves an app with `listen` until `stop`. */
async function serveOnNode(app: Hono): Promise<{ url: string; stop(): Promise<void> }> {
  const controller = new AbortController();
  const urls: string[] = [];
  const stopped = listen(app, {
    signal: controller.signal,
    onListen: ({ url }) => urls.push(url),
  });
  await expect.poll(() => urls.length).toBe(1);
  return {
    url: urls[0] as string,
    stop: async () => {
      controller.abort();
      await stopped;
    },
  };
}

describe('accessLog', () => {
  it('logs one structured line per request with its id, and never a key', async () => {
    const { lines, destination } = collectLines();
    const key = 'secret-key-0123456789';
    const app = new Hono();
    app.use(requestIds());
    app.use(accessLog(pino({ base: undefined }, destination)));
    app.use(apiKeyAuth([key]));
    app.get('/things', (context) => context.text('ok'));
    await app.request('/things', { headers: { 'x-request-id': 'req-1', 'x-api-key': key } });
    await app.request('/things', { headers: { authorization: 'Bearer wrong-key-987654321' } });
    const entries = lines.map((line) => JSON.parse(line));
    expect(entries).toMatchObject([
      { requestId: 'req-1', method: 'GET', path: '/things', status: 200, msg: 'request' },
      { method: 'GET', path: '/things', status: 401 },
    ]);
    expect(entries[0].durationMs).toBeTypeOf('number');
    expect(lines.join('')).not.toContain(key);
    expect(lines.join('')).not.toContain('wrong-key');
  });

  it('logs a caller who leaves a call still running when they leave (499), served on Node', async () => {
    const { lines, destination } = collectLines();
    let release = () => {};
    let arrived = false;
    const app = new Hono();
    app.use(accessLog(pino({ base: undefined }, destination)));
    app.get('/slow', async (context) => {
      arrived = true;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return context.text('late');
    });
    const served = await serveOnNode(app);
    const caller = new AbortController();
    const call = fetch(`${served.url}/slow`, { signal: caller.signal }).catch(() => undefined);
    await expect.poll(() => arrived).toBe(true);
    caller.abort();
    await call;
    // Logged while the handler still runs.
    await expect.poll(() => lines.length).toBe(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ path: '/slow', status: 499 });
    release();
    await served.stop();
    expect(lines).toHaveLength(1);
  });

  it('logs the path as it was sent, served on Node, before URL parsing resolved it', async () => {
    const { lines, destination } = collectLines();
    const app = new Hono();
    app.use(accessLog(pino({ base: undefined }, destination)));
    app.use(refuseDotSegments());
    app.get('/admin', (context) => context.text('ok'));
    const served = await serveOnNode(app);
    const { hostname, port } = new URL(served.url);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const sent = httpRequest({ hostname, port, path: '/public/../admin?x=1' });
      sent.on('response', (answer) => {
        answer.resume();
        resolve(answer.statusCode);
      });
      sent.on('error', reject);
      sent.end();
    });
    expect(status).toBe(404);
    await expect.poll(() => lines.length).toBe(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      path: '/public/../admin',
      status: 404,
    });
    await served.stop();
  });
});
