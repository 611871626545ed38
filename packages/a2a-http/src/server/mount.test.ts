import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { jsonNotFoundHandler } from '@agentport/http';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { postJson } from '../testing/serve.ts';
import { createA2AHttpServer } from './create-a2a-http-server.ts';

const root = createA2AHttpServer({ agent: createTickerAgent() });
const echo = createA2AHttpServer({ agent: createEchoAgent() });

// The gateway's shape: the default agent at `/`, each agent under `/agents/{name}`, and another
// package's routes registered under the same prefix after ours.
const gateway = new Hono();
gateway.notFound(jsonNotFoundHandler);
gateway.route('/', root.app);
gateway.route('/agents/echo', echo.app);
gateway.post('/agents/:name/invoke', (context) =>
  context.json({ result: `invoked ${context.req.param('name')}` }),
);
gateway.all('/agents/echo/*', (context) => context.text('sibling catch-all', 418));

afterAll(async () => {
  await Promise.all([root.close(), echo.close()]);
});

describe('mounted with parent.route(prefix, server.app)', () => {
  it('serves each agent under its prefix', async () => {
    const rootCard = await (await gateway.request('http://gw/.well-known/agent.json')).json();
    expect(rootCard).toMatchObject({ name: 'ticker', endpoint: 'http://gw' });
    const echoCard = await (
      await gateway.request('http://gw/agents/echo/.well-known/agent.json')
    ).json();
    expect(echoCard).toMatchObject({ name: 'echo', endpoint: 'http://gw/agents/echo' });

    const created = await postJson(gateway, '/agents/echo/tasks', { input: 'mounted' });
    expect(created.status).toBe(201);
    const { task } = await created.json();
    expect(created.headers.get('location')).toBe(`/agents/echo/tasks/${task.id}`);
    const done = await (await gateway.request(`/agents/echo/tasks/${task.id}?wait=5`)).json();
    expect(done.task).toMatchObject({ agentName: 'echo', output: 'mounted' });
    expect((await gateway.request(`/tasks/${task.id}`)).status).toBe(404);
  });

  it('leaves unknown sub-routes of its prefix to sibling routes', async () => {
    const invoked = await postJson(gateway, '/agents/echo/invoke', { input: 'x' });
    expect(invoked.status).toBe(200);
    expect(await invoked.json()).toEqual({ result: 'invoked echo' });
    const other = await gateway.request('/agents/echo/anything-else');
    expect(other.status).toBe(418);
  });

  it('keeps its JSON errors under a parent without an error handler', async () => {
    const response = await postJson(gateway, '/agents/echo/tasks', '{oops');
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('invalid_json');
    const missing = await gateway.request('/agents/echo/tasks/nope/cancel', { method: 'POST' });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('task_not_found');
  });

  it('lets the parent answer 404 for a path nobody serves', async () => {
    const response = await gateway.request('/agents/unknown/tasks');
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('not_found');
  });
});
