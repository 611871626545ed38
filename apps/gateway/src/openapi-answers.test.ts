import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createBuiltinAgents } from './builtin-agents.ts';
import { createGateway, type Gateway, type GatewayOptions } from './gateway.ts';
import { completed } from './testing/invoke-answer.ts';

const base = 'http://gateway.test';
const json = { 'content-type': 'application/json' };

interface Operation {
  parameters?: Array<{ name: string; in: string }>;
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
}

const gateways: Gateway[] = [];
afterAll(() => Promise.all(gateways.map((gateway) => gateway.shutdown())));

/** A gateway of the built-in agents and its OpenAPI document. */
async function documented(options: Partial<GatewayOptions> = {}) {
  const gateway = createGateway({
    agents: createBuiltinAgents(),
    defaultAgent: 'assistant',
    publicUrl: base,
    ...options,
  });
  gateways.push(gateway);
  const document = (await (await gateway.app.request('/openapi.json')).json()) as Document;
  return { app: gateway.app, document };
}

/**
 * Checks an answer against the schema its operation documents for its status and media type, and
 * that this schema is a real one (it refuses an empty object); returns the body.
 */
async function expectDocumented(
  document: Document,
  operation: `${'GET' | 'POST'} ${string}`,
  response: Response,
): Promise<unknown> {
  const [method = '', path = ''] = operation.split(' ');
  const type = (response.headers.get('content-type') ?? '').split(';')[0] ?? '';
  const schema =
    document.paths[path]?.[method.toLowerCase()]?.responses[String(response.status)]?.content?.[
      type
    ]?.schema;
  const where = `${operation} ${response.status} ${type}`;
  expect(response.ok, where).toBe(true);
  expect(Object.keys(schema ?? {}), where).toContain('type');
  const validator = z.fromJSONSchema(schema as z.core.JSONSchema.JSONSchema);
  const body: unknown = await response.json();
  expect(validator.safeParse(body).error, `${where} ${JSON.stringify(body)}`).toBeUndefined();
  expect(validator.safeParse({}).success, where).toBe(false);
  return body;
}

/** The documented success schema of an operation as a validator. */
function validatorOf(document: Document, method: string, path: string, status = '200') {
  const schema = document.paths[path]?.[method]?.responses[status]?.content?.['application/json'];
  return z.fromJSONSchema(schema?.schema as z.core.JSONSchema.JSONSchema);
}

function post(body: unknown): RequestInit {
  return { method: 'POST', headers: json, body: JSON.stringify(body) };
}

describe('OpenAPI answer schemas', () => {
  it('match readyz: ready, degraded with a remote unavailable, and name its 503', async () => {
    const { app, document } = await documented();
    expect(await expectDocumented(document, 'GET /readyz', await app.request('/readyz'))).toEqual({
      status: 'ready',
    });
    const unavailableRemotes = [
      {
        name: 'far',
        url: 'http://far.test/agents/far',
        since: new Date(),
        lastError: 'getCard failed: cannot reach http://far.test/agents/far (ECONNREFUSED)',
        connect: () => Promise.reject(new Error('still down')),
      },
    ];
    const degraded = await documented({ unavailableRemotes });
    const answer = await degraded.app.request('/readyz');
    expect(await expectDocumented(degraded.document, 'GET /readyz', answer)).toMatchObject({
      status: 'degraded',
      unavailable: [{ name: 'far' }],
    });
    const listed = await degraded.app.request('/agents');
    expect(await expectDocumented(degraded.document, 'GET /agents', listed)).toMatchObject({
      agents: [{}, {}, {}, {}, { name: 'far', unavailable: true }],
    });
    const refusal = document.paths['/readyz']?.get?.responses['503'];
    expect(refusal?.content?.['application/json']?.schema).toMatchObject({ required: ['error'] });
    const strict = await documented({ unavailableRemotes, requireRemotes: true });
    expect((await strict.app.request('/readyz')).status).toBe(503);
  });

  it('match the REST/SSE agent list, agent description and invoke answers', async () => {
    const { app, document } = await documented();
    const list = await expectDocumented(document, 'GET /agents', await app.request('/agents'));
    expect(list).toMatchObject({ agents: [{ name: 'assistant' }, { name: 'echo' }, {}, {}] });
    for (const name of ['assistant', 'echo']) {
      await expectDocumented(document, `GET /agents/${name}`, await app.request(`/agents/${name}`));
    }
    const asked = await app.request('/agents/booking/invoke', post({ input: 'a table' }));
    expect(await expectDocumented(document, 'POST /agents/booking/invoke', asked)).toMatchObject({
      status: 'input-required',
      taskId: expect.any(String),
    });
    const invoked = await app.request('/agents/assistant/invoke', post({ input: 'what is 6 * 7' }));
    expect(await expectDocumented(document, 'POST /agents/assistant/invoke', invoked)).toEqual(
      completed('6 * 7 = 42'),
    );
    expect(
      validatorOf(document, 'post', '/agents/echo/invoke').safeParse({ result: 1 }).success,
    ).toBe(false);
  });

  it('match the hand-rolled A2A task answers: create, get, cancel and a page', async () => {
    const { app, document } = await documented();
    const completed = await app.request('/tasks?wait=5', post({ input: 'repeat hello' }));
    expect(completed.status).toBe(201);
    expect(await expectDocumented(document, 'POST /tasks', completed)).toMatchObject({
      task: { status: 'completed', output: 'hello', metadata: {} },
    });
    const failed = await app.request(
      '/tasks?wait=5',
      post({ input: 'what is 1/0', metadata: { from: 'test' } }),
    );
    expect(await expectDocumented(document, 'POST /tasks', failed)).toMatchObject({
      task: { status: 'failed', error: { code: 'invalid_input' } },
    });

    const created = await app.request('/agents/ticker/tasks', post({ input: '20 every 250ms' }));
    const { task } = (await expectDocumented(document, 'POST /agents/ticker/tasks', created)) as {
      task: { id: string };
    };
    const got = await app.request(`/agents/ticker/tasks/${task.id}`);
    await expectDocumented(document, 'GET /agents/ticker/tasks/{id}', got);
    const canceled = await app.request(`/agents/ticker/tasks/${task.id}/cancel`, {
      method: 'POST',
    });
    expect(
      await expectDocumented(document, 'POST /agents/ticker/tasks/{id}/cancel', canceled),
    ).toMatchObject({ task: { status: 'canceled' } });

    const page = await expectDocumented(
      document,
      'GET /tasks',
      await app.request('/tasks?limit=1'),
    );
    expect(page).toMatchObject({ tasks: [{}], nextCursor: expect.any(String) });
    const all = await expectDocumented(document, 'GET /tasks', await app.request('/tasks'));
    expect(all).not.toHaveProperty('nextCursor');
  });

  it('refuse a task without a field the gateway always sends', async () => {
    const { document } = await documented();
    const answer = validatorOf(document, 'get', '/tasks/{id}');
    const task = {
      id: 't-1',
      contextId: 'c-1',
      agentName: 'echo',
      status: 'completed',
      input: 'hi',
      messages: [],
      artifacts: [],
      metadata: {},
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      seq: 3,
    };
    expect(answer.safeParse({ task }).success).toBe(true);
    const { agentName: _agentName, ...withoutAgent } = task;
    expect(answer.safeParse({ task: withoutAgent }).success).toBe(false);
    expect(answer.safeParse({ task: { ...task, status: 'done' } }).success).toBe(false);
  });

  it('match the hand-rolled Agent Cards, with and without keys', async () => {
    const { app, document } = await documented();
    await expectDocumented(
      document,
      'GET /.well-known/agent.json',
      await app.request('/.well-known/agent.json'),
    );
    const echo = await app.request('/agents/echo/.well-known/agent.json');
    await expectDocumented(document, 'GET /agents/echo/.well-known/agent.json', echo);
    const secured = await documented({ apiKeys: ['test-key-0123456789abcdef'] });
    const card = await secured.app.request('/.well-known/agent.json');
    expect(
      await expectDocumented(secured.document, 'GET /.well-known/agent.json', card),
    ).toHaveProperty('securitySchemes');
  });

  it('match the compat agent list, AgentDef and JSON run answers', async () => {
    const { app, document } = await documented();
    const list = await app.request('/compat/agents');
    expect(await expectDocumented(document, 'GET /compat/agents', list)).toHaveLength(4);
    for (const name of ['assistant', 'echo']) {
      const definition = await app.request(`/compat/agents/${name}`);
      await expectDocumented(document, 'GET /compat/agents/{name}', definition);
    }
    const withTool = await app.request(
      '/compat/runs',
      post({ agent_name: 'assistant', input: 'what is 2 + 2' }),
    );
    expect(await expectDocumented(document, 'POST /compat/runs', withTool)).toMatchObject({
      tool_calls: [{ name: 'calculator' }],
    });
    const plain = await app.request('/compat/runs', post({ agent_name: 'echo', input: 'hi' }));
    expect(await expectDocumented(document, 'POST /compat/runs', plain)).toEqual({
      output: 'hi',
      agent: 'echo',
      conversation_id: expect.any(String),
    });
    const paused = await app.request('/compat/runs', post({ agent_name: 'booking', input: 'hi' }));
    expect(await expectDocumented(document, 'POST /compat/runs', paused)).toMatchObject({
      interruption: { question: 'For how many people?' },
    });
    // A streamed run is documented as a stream, with no JSON schema.
    const content = document.paths['/compat/runs']?.post?.responses['200']?.content ?? {};
    expect(content['text/event-stream']?.schema).toEqual({ type: 'string' });
  });

  it("documents the query parameters of the SDK binding's ListTasks", async () => {
    const { app, document } = await documented();
    const names = (path: string) =>
      (document.paths[path]?.get?.parameters ?? [])
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => parameter.name);
    const read = [
      'contextId',
      'status',
      'pageSize',
      'pageToken',
      'historyLength',
      'statusTimestampAfter',
      'includeArtifacts',
    ];
    expect(names('/a2a/echo/rest/tasks')).toEqual([...read, 'tenant']);
    expect(names('/a2a/echo/rest/{tenant}/tasks')).toEqual(read);
    expect(names('/a2a/echo/rest/tasks/{taskId}')).toEqual([]);
    // The binding reads them indeed: a page size out of its documented range is refused.
    const headers = { 'A2A-Version': '1.0' };
    expect((await app.request('/a2a/echo/rest/tasks?pageSize=1', { headers })).status).toBe(200);
    expect((await app.request('/a2a/echo/rest/tasks?pageSize=0', { headers })).status).toBe(400);
  });

  it("documents the root SDK card's ?agent= query, which the per-agent cards do not read", async () => {
    const { app, document } = await documented();
    const parameters = (path: string) => document.paths[path]?.get?.parameters ?? [];
    expect(parameters('/.well-known/agent-card.json')).toEqual([
      expect.objectContaining({ name: 'agent', in: 'query', required: false }),
    ]);
    expect(parameters('/a2a/echo/.well-known/agent-card.json')).toEqual([]);
    const headers = { 'A2A-Version': '1.0' };
    const card = await app.request('/.well-known/agent-card.json?agent=echo', { headers });
    expect(((await card.json()) as { name: string }).name).toBe('echo');
  });

  it('documents the events route as resumable: ?lastEventId, and its 400, 404 and 410', async () => {
    const { app, document } = await documented();
    for (const path of ['/tasks/{id}/events', '/agents/echo/tasks/{id}/events']) {
      const operation = document.paths[path]?.get;
      expect(operation?.parameters).toEqual([
        expect.objectContaining({ name: 'id', in: 'path' }),
        expect.objectContaining({ name: 'lastEventId', in: 'query', required: false }),
      ]);
      expect(Object.keys(operation?.responses ?? {})).toEqual([
        '200',
        '400',
        '404',
        '410',
        'default',
      ]);
      expect(Object.keys(operation?.responses['200']?.content ?? {})).toEqual([
        'text/event-stream',
      ]);
    }
    // The route reads it indeed: a lastEventId that is not a number is refused.
    const created = await app.request('/agents/echo/tasks?wait=5', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: 'x' }),
    });
    const { task } = (await created.json()) as { task: { id: string } };
    const refused = await app.request(`/agents/echo/tasks/${task.id}/events?lastEventId=x`);
    expect(refused.status).toBe(400);
  });
});
