import { listen } from '@agentport/http/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltinAgents } from './builtin-agents.ts';
import { createGateway, type Gateway } from './gateway.ts';

describe('request ids over a Node socket', () => {
  const controller = new AbortController();
  let base = '';
  let stopped: Promise<void> | undefined;

  beforeAll(async () => {
    let gateway: Gateway | undefined;
    await new Promise<void>((resolve, reject) => {
      stopped = listen(
        {
          fetch: (request: Request, env?: unknown) => (gateway as Gateway).app.fetch(request, env),
        },
        {
          port: 0,
          signal: controller.signal,
          onListen: ({ url }) => {
            base = url;
            gateway = createGateway({
              agents: createBuiltinAgents(),
              defaultAgent: 'assistant',
              publicUrl: url,
            });
            resolve();
          },
        },
      );
      stopped.catch(reject);
    });
  });

  afterAll(async () => {
    controller.abort();
    await stopped;
  });

  const post = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ input: 'a b' }),
    });

  it('answers a sane given id on JSON, SSE and long-poll responses', async () => {
    for (const path of [
      '/agents/echo/invoke',
      '/agents/echo/stream',
      '/agents/echo/tasks?wait=5',
    ]) {
      const response = await post(path, { 'x-request-id': 'given-id_1=' });
      await response.text();
      expect(response.headers.get('x-request-id'), path).toBe('given-id_1=');
    }
  });

  it('replaces an unsafe or overlong id with a new one, also on errors', async () => {
    const unsafe = await post('/agents/echo/invoke', { 'x-request-id': 'a b;c' });
    await unsafe.text();
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const long = await post('/agents/nobody/invoke', { 'x-request-id': 'x'.repeat(256) });
    expect(long.status).toBe(404);
    await long.text();
    expect(long.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('writes SSE straight to the socket, keeping the request id and the SSE headers', async () => {
    const response = await post('/agents/echo/stream', { 'x-request-id': 'sse-1' });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('x-request-id')).toBe('sse-1');
    const text = await response.text();
    expect(text).toContain('event: done');
  });
});
