import { createEchoAgent } from '@agentport/core/agents';
import { Hono } from 'hono';
import type { SmartRouter } from 'hono/router/smart-router';
import { describe, expect, it } from 'vitest';
import { createA2ASdkServer } from '../server.ts';

const config = {
  name: 'echo',
  version: '1.0.0',
  description: 'Echoes',
  url: 'http://localhost/a2a/echo',
};
const V1 = { 'A2A-Version': '1.0', 'content-type': 'application/json' };
const send = (text: string) =>
  JSON.stringify({
    message: { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
  });

/** A gateway-like app: ordinary routes next to the a2a-sdk mount. */
function composedApp(mount: string) {
  const server = createA2ASdkServer(createEchoAgent(), config);
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.post('/agents/echo/invoke', (c) => c.json({ invoked: true }));
  app.route(mount, server.app);
  return { app, server };
}

describe('the HTTP+JSON routes of the mount', () => {
  it("let Hono's SmartRouter pick the RegExpRouter for the app the mount is part of", async () => {
    const { app, server } = composedApp('/a2a/echo');
    const response = await app.request('/healthz');
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(app.router.name).toBe('SmartRouter + RegExpRouter');
    expect((app.router as SmartRouter<unknown>).activeRouter.name).toBe('RegExpRouter');
    server.close();
  });

  it('answers colon verbs, tenants and the v0.3 routes through that RegExpRouter', async () => {
    const { app, server } = composedApp('/a2a/echo');
    const sendTo = async (path: string) => {
      const response = await app.request(path, { method: 'POST', headers: V1, body: send('hi') });
      return ((await response.json()) as { task: { id: string } }).task.id;
    };
    const tenantTask = await sendTo('/a2a/echo/rest/acme/message:send');
    const fetched = await app.request(`/a2a/echo/rest/acme/tasks/${tenantTask}`, { headers: V1 });
    expect(await fetched.json()).toMatchObject({ id: tenantTask });
    const task = await sendTo('/a2a/echo/rest/message:send');
    const canceled = await app.request(`/a2a/echo/rest/tasks/${task}:cancel`, {
      method: 'POST',
      headers: V1,
    });
    expect(await canceled.json()).toMatchObject({ error: { status: 'FAILED_PRECONDITION' } });
    const legacy = await app.request(`/a2a/echo/rest/v1/tasks/${task}`);
    expect(legacy.headers.get('content-type')).toBe('application/json');
    expect(await legacy.json()).toMatchObject({ id: task });
    const unknown = await app.request('/a2a/echo/rest/tasks/x:pause', { method: 'POST' });
    expect(await unknown.json()).toMatchObject({
      error: { code: 404, message: 'No route for POST /a2a/echo/rest/tasks/x:pause' },
    });
    expect((app.router as SmartRouter<unknown>).activeRouter.name).toBe('RegExpRouter');
    server.close();
  });

  it('are listed in restRoutes, each answered by the app', async () => {
    const { app, restRoutes, close } = createA2ASdkServer(createEchoAgent(), config);
    expect(restRoutes).toHaveLength(35);
    expect(restRoutes).toContainEqual({
      method: 'POST',
      path: '/rest/:tenant/tasks/:taskId{[^/]+:cancel}',
    });
    for (const { method, path } of restRoutes) {
      const concrete = path.replace(/:\w+(?:\{([^}]*)\})?/g, (_match, pattern?: string) =>
        pattern === undefined ? 'x' : pattern.replace('[^/]+', 'x'),
      );
      const headers = path.startsWith('/rest/v1/') ? {} : V1;
      const response = await app.request(concrete, { method, headers });
      expect(await response.text(), `${method} ${concrete}`).not.toContain('No route for');
    }
    close();
  });

  it('find their path below a mount with parameters and decode their parameters', async () => {
    const { app, server } = composedApp('/a2a/:agent');
    const response = await app.request('/a2a/echo/rest/a%20b/tasks/missing%2Fone', {
      headers: V1,
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      error: { status: 'NOT_FOUND', message: 'Task not found: missing/one' },
    });
    server.close();
  });
});
