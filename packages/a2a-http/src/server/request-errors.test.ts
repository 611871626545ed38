import { createMemoryTaskStore } from '@agentport/core';
import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { describe, expect, it } from 'vitest';
import { postJson } from '../testing/serve.ts';
import { createA2AHttpServer } from './create-a2a-http-server.ts';

const { app } = createA2AHttpServer({ agent: createEchoAgent(), maxBodyBytes: 1024 });

async function expectError(response: Response, status: number, code: string): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/json');
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body).toEqual({ error: { code, message: expect.any(String) } });
  expect(body.error.message).not.toMatch(/\n\s+at /);
  return body.error.message;
}

/** An object `depth` levels deep, itself included: `{ a: { a: ... { a: 1 } } }`. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 1 };
  for (let level = 1; level < depth; level += 1) value = { a: value };
  return value;
}

describe('bad input to POST /tasks', () => {
  it('answers 400 invalid_json for a body that is not JSON', async () => {
    await expectError(await postJson(app, '/tasks', '{"input": '), 400, 'invalid_json');
  });

  it.each([
    ['a missing input', {}, 'input: input must be a non-empty string or a list of parts'],
    ['an empty input', { input: '' }, 'input: input must be a non-empty string or a list of parts'],
    [
      'a non-string input',
      { input: 42 },
      'input: input must be a non-empty string or a list of parts',
    ],
    ['an empty list of parts', { input: [] }, 'input: input must have at least one part'],
    [
      'a contextId that is not a string',
      { input: 'x', contextId: 7 },
      'contextId: must be a string',
    ],
    ['an empty contextId', { input: 'x', contextId: '' }, 'contextId: must not be empty'],
    ['an array metadata', { input: 'x', metadata: [1] }, 'metadata: must be a JSON object'],
    ['a null metadata', { input: 'x', metadata: null }, 'metadata: must be a JSON object'],
    ['a string metadata', { input: 'x', metadata: 'm' }, 'metadata: must be a JSON object'],
    [
      'a metadata nested 33 deep',
      { input: 'x', metadata: nested(33) },
      'metadata: must not nest deeper than 32 levels',
    ],
    [
      'a metadata with an array nested 33 deep',
      { input: 'x', metadata: { list: [nested(32)] } },
      'metadata: must not nest deeper than 32 levels',
    ],
    ['a body that is an array', [{ input: 'x' }], 'body: must be a JSON object with an input'],
    ['a body that is null', null, 'body: must be a JSON object with an input'],
  ])('answers 400 invalid_input for %s', async (_case, body, message) => {
    const text = await expectError(await postJson(app, '/tasks', body), 400, 'invalid_input');
    expect(text).toContain(message);
  });

  it('refuses a __proto__ key in the metadata rather than dropping it, storing nothing', async () => {
    const server = createA2AHttpServer({ agent: createEchoAgent() });
    const body = '{"input":"x","metadata":{"__proto__":{"admin":true},"kept":1}}';
    for (const path of ['/tasks', '/tasks?wait=2']) {
      const message = await expectError(
        await postJson(server.app, path, body),
        400,
        'invalid_input',
      );
      expect(message).toContain('__proto__');
    }
    expect((await (await server.app.request('/tasks')).json()).tasks).toEqual([]);
    await server.close();
  });

  it('answers 503 task_store_full when the store holds only unfinished tasks and is full', async () => {
    const server = createA2AHttpServer({
      agent: createTickerAgent(),
      store: createMemoryTaskStore({ maxTasks: 1 }),
    });
    const first = await postJson(server.app, '/tasks', { input: '100 every 50ms' });
    expect(first.status).toBe(201);
    const refused = await postJson(server.app, '/tasks', { input: '100 every 50ms' });
    expect(await expectError(refused, 503, 'task_store_full')).toBe(
      'Too many unfinished tasks: try again later',
    );
    await server.close();
  });

  it('takes metadata nested 32 deep, and answers it back', async () => {
    const response = await postJson(app, '/tasks', { input: 'x', metadata: nested(32) });
    expect(response.status).toBe(201);
    expect((await response.json()).task.metadata).toEqual(nested(32));
  });

  it('refuses metadata nested past what an answer can carry, storing nothing', async () => {
    const server = createA2AHttpServer({ agent: createEchoAgent() });
    const deep = `{"input":"deep","metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    for (const path of ['/tasks', '/tasks?wait=2']) {
      const message = await expectError(
        await postJson(server.app, path, deep),
        400,
        'invalid_input',
      );
      expect(message).toContain('metadata: must not nest deeper than 32 levels');
    }
    const listed = await server.app.request('/tasks');
    expect(listed.status).toBe(200);
    expect((await listed.json()).tasks).toEqual([]);
    await server.close();
  });

  it('answers 415 for a body that is not declared as JSON', async () => {
    const response = await postJson(app, '/tasks', '{"input":"x"}', {
      'content-type': 'text/plain',
    });
    await expectError(response, 415, 'unsupported_media_type');
    await expectError(await postJson(app, '/tasks', 'input=x', {}), 415, 'unsupported_media_type');
  });

  it('answers 413 for a body over the configured limit', async () => {
    const response = await postJson(app, '/tasks', { input: 'x'.repeat(2048) });
    await expectError(response, 413, 'payload_too_large');
  });

  it('limits the body to 1 MiB by default', async () => {
    const server = createA2AHttpServer({ agent: createEchoAgent() });
    const fits = await postJson(server.app, '/tasks', { input: 'x'.repeat(1000_000) });
    expect(fits.status).toBe(201);
    const over = await postJson(server.app, '/tasks', { input: 'x'.repeat(1024 * 1024) });
    await expectError(over, 413, 'payload_too_large');
    await server.close();
  });
});

describe('bad queries', () => {
  it.each([
    ['/tasks?limit=abc', 'limit'],
    ['/tasks?limit=0', 'limit'],
    ['/tasks?limit=101', 'limit'],
    ['/tasks?limit=1.5', 'limit'],
    ['/tasks?status=done', 'status'],
    ['/tasks?cursor=not-a-cursor', 'cursor'],
    ['/tasks/some-id?wait=soon', 'wait'],
    ['/tasks/some-id?wait=-1', 'wait'],
    // What Number() would read but no one writes for seconds or a count: refused, not guessed.
    ['/tasks/some-id?wait=', 'wait'],
    ['/tasks/some-id?wait=0x10', 'wait'],
    ['/tasks/some-id?wait=1e1', 'wait'],
    ['/tasks/some-id?wait=Infinity', 'wait'],
    ['/tasks/some-id?wait=%205', 'wait'],
    ['/tasks?limit=0x10', 'limit'],
    ['/tasks?limit=1e1', 'limit'],
    ['/tasks?limit=', 'limit'],
  ])('answers 400 invalid_input for %s', async (path, field) => {
    const message = await expectError(await app.request(path), 400, 'invalid_input');
    expect(message.toLowerCase()).toContain(field);
  });

  it.each(['later', '0x10', '1e1', ''])(
    'answers 400 invalid_input for wait=%s on POST /tasks',
    async (wait) => {
      const response = await postJson(app, `/tasks?wait=${wait}`, { input: 'x' });
      const message = await expectError(response, 400, 'invalid_input');
      expect(message).toContain('wait');
    },
  );

  it('reads plain decimal waits and limits, fractions included', async () => {
    const created = await postJson(app, '/tasks?wait=0.5', { input: 'x' });
    expect(created.status).toBe(201);
    const { task } = (await created.json()) as { task: { id: string } };
    expect((await app.request(`/tasks/${task.id}?wait=0.25`)).status).toBe(200);
    expect((await app.request('/tasks?limit=07')).status).toBe(200);
  });
});

describe('unknown tasks and routes', () => {
  it.each([
    ['GET', '/tasks/no-such-task'],
    ['GET', '/tasks/no-such-task?wait=5'],
    ['POST', '/tasks/no-such-task/cancel'],
    ['GET', '/tasks/no-such-task/events'],
  ])('answers 404 task_not_found for %s %s', async (method, path) => {
    const message = await expectError(await app.request(path, { method }), 404, 'task_not_found');
    expect(message).toContain('no-such-task');
  });

  it.each(['/nope', '/tasks/a/b/c', '/.well-known/other.json'])(
    'answers 404 not_found for the unknown route %s',
    async (path) => {
      await expectError(await app.request(path), 404, 'not_found');
    },
  );
});

describe('wrong methods', () => {
  it.each([
    ['DELETE', '/tasks', 'GET, HEAD, POST'],
    ['PUT', '/tasks/some-id', 'GET, HEAD'],
    ['GET', '/tasks/some-id/cancel', 'POST'],
    ['POST', '/tasks/some-id/events', 'GET, HEAD'],
  ])('answers 405 with Allow for %s %s', async (method, path, allow) => {
    const response = await app.request(path, { method });
    await expectError(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toBe(allow);
  });
});
