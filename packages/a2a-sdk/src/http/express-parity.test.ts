import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ExchangeRequest, exchange } from '../test-support/exchange.ts';
import { type ExpressServedAgent, serveAgentWithExpress } from '../test-support/express-server.ts';
import { type ServedAgent, serveAgent } from '../test-support/servers.ts';

const V1 = { 'A2A-Version': '1.0' };
const message = (messageId: string, text: string, extra: Record<string, unknown> = {}) => ({
  messageId,
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});
const rpc = (method: string, params: unknown, id: unknown = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});
const legacyMessage = (messageId: string, text: string) => ({
  kind: 'message',
  messageId,
  role: 'user',
  parts: [{ kind: 'text', text }],
});

type Case = [name: string, request: ExchangeRequest | ((taskId: string) => ExchangeRequest)];

/** Requests sent, in this order, to our Hono mount and to the SDK's Express app. */
const cases: Case[] = [
  ['the v1.0 card', { path: '/.well-known/agent-card.json', headers: V1 }],
  [
    'JSON-RPC with a text/plain body',
    { path: '/jsonrpc', headers: { ...V1, 'content-type': 'text/plain' }, raw: '{}' },
  ],
  [
    'JSON-RPC with invalid JSON',
    { path: '/jsonrpc', headers: { ...V1, 'content-type': 'application/json' }, raw: '{bad' },
  ],
  [
    'JSON-RPC with a JSON string',
    { path: '/jsonrpc', headers: { ...V1, 'content-type': 'application/json' }, raw: '"text"' },
  ],
  [
    'JSON-RPC with an empty body',
    { path: '/jsonrpc', headers: { ...V1, 'content-type': 'application/json' }, raw: '' },
  ],
  [
    'JSON-RPC without a Content-Type',
    {
      path: '/jsonrpc',
      headers: V1,
      raw: new TextEncoder().encode('{}') as Uint8Array<ArrayBuffer>,
    },
  ],
  [
    'JSON-RPC with a wrong jsonrpc version',
    { path: '/jsonrpc', headers: V1, json: { jsonrpc: '1.0', id: 1, method: 'GetTask' } },
  ],
  [
    'JSON-RPC with an object id',
    {
      path: '/jsonrpc',
      headers: V1,
      json: { jsonrpc: '2.0', id: {}, method: 'GetTask', params: {} },
    },
  ],
  ['JSON-RPC with an unknown method', { path: '/jsonrpc', headers: V1, json: rpc('Nope', {}) }],
  ['JSON-RPC with array params', { path: '/jsonrpc', headers: V1, json: rpc('GetTask', []) }],
  [
    'JSON-RPC GetTask of an unknown task',
    { path: '/jsonrpc', headers: V1, json: rpc('GetTask', { id: 'missing' }) },
  ],
  [
    'JSON-RPC GetTask with a blank id',
    { path: '/jsonrpc', headers: V1, json: rpc('GetTask', { id: '  ' }, 'a') },
  ],
  [
    'JSON-RPC CancelTask of an unknown task',
    { path: '/jsonrpc', headers: V1, json: rpc('CancelTask', { id: 'missing' }) },
  ],
  [
    'JSON-RPC with A2A-Version 2.0',
    { path: '/jsonrpc', headers: { 'A2A-Version': '2.0' }, json: rpc('GetTask', { id: 'x' }) },
  ],
  [
    'JSON-RPC SendMessage without a message (id 0)',
    { path: '/jsonrpc', headers: V1, json: rpc('SendMessage', {}, 0) },
  ],
  [
    'JSON-RPC SendMessage',
    {
      path: '/jsonrpc',
      headers: V1,
      json: rpc('SendMessage', { message: message('rpc-1', 'hello rpc world') }),
    },
  ],
  [
    'JSON-RPC SendMessage returning immediately',
    {
      path: '/jsonrpc',
      headers: V1,
      json: rpc('SendMessage', {
        message: message('rpc-2', 'quick'),
        configuration: { returnImmediately: true },
      }),
    },
  ],
  [
    'JSON-RPC SendStreamingMessage',
    {
      path: '/jsonrpc',
      headers: V1,
      json: rpc('SendStreamingMessage', { message: message('rpc-3', 'a b c') }),
    },
  ],
  [
    'JSON-RPC SubscribeToTask of an unknown task',
    { path: '/jsonrpc', headers: V1, json: rpc('SubscribeToTask', { id: 'missing' }) },
  ],
  [
    'JSON-RPC SubscribeToTask of a finished task',
    (taskId) => ({ path: '/jsonrpc', headers: V1, json: rpc('SubscribeToTask', { id: taskId }) }),
  ],
  [
    'JSON-RPC GetTask with historyLength 0',
    (taskId) => ({
      path: '/jsonrpc',
      headers: V1,
      json: rpc('GetTask', { id: taskId, historyLength: 0 }),
    }),
  ],
  [
    'JSON-RPC CancelTask of a completed task',
    (taskId) => ({ path: '/jsonrpc', headers: V1, json: rpc('CancelTask', { id: taskId }) }),
  ],
  [
    'JSON-RPC ListTasks with pageSize 0',
    { path: '/jsonrpc', headers: V1, json: rpc('ListTasks', { pageSize: 0 }) },
  ],
  [
    'JSON-RPC ListTasks by context',
    {
      path: '/jsonrpc',
      headers: V1,
      json: rpc('ListTasks', { contextId: 'parity-context', includeArtifacts: true }),
    },
  ],
  [
    'v0.3 JSON-RPC tasks/get of an unknown task',
    { path: '/jsonrpc', json: rpc('tasks/get', { id: 'missing' }) },
  ],
  [
    'v0.3 JSON-RPC with a v1.0 method name',
    { path: '/jsonrpc', json: rpc('GetTask', { id: 'missing' }) },
  ],
  [
    'v0.3 JSON-RPC message/send',
    {
      path: '/jsonrpc',
      json: rpc('message/send', { message: legacyMessage('legacy-1', 'old style') }),
    },
  ],
  [
    'v0.3 JSON-RPC message/stream',
    {
      path: '/jsonrpc',
      json: rpc('message/stream', { message: legacyMessage('legacy-2', 'x y') }),
    },
  ],
  [
    'v0.3 JSON-RPC tasks/resubscribe of an unknown task',
    { path: '/jsonrpc', json: rpc('tasks/resubscribe', { id: 'missing' }) },
  ],
  [
    'v0.3 JSON-RPC tasks/get',
    (taskId) => ({ path: '/jsonrpc', json: rpc('tasks/get', { id: taskId, historyLength: 1 }) }),
  ],
  [
    'REST send with a text/plain body',
    { path: '/rest/message:send', headers: { ...V1, 'content-type': 'text/plain' }, raw: '{}' },
  ],
  [
    'REST send with invalid JSON',
    {
      path: '/rest/message:send',
      headers: { ...V1, 'content-type': 'application/json' },
      raw: '{bad',
    },
  ],
  ['REST send without a message', { path: '/rest/message:send', headers: V1, json: {} }],
  [
    'REST send without a messageId',
    {
      path: '/rest/message:send',
      headers: V1,
      json: { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } },
    },
  ],
  [
    'REST send',
    { path: '/rest/message:send', headers: V1, json: { message: message('rest-1', 'hello rest') } },
  ],
  [
    'REST send in a context',
    {
      path: '/rest/message:send',
      headers: { ...V1, 'content-type': 'application/a2a+json' },
      json: { message: message('rest-2', 'listed', { contextId: 'parity-context' }) },
    },
  ],
  [
    'REST stream',
    { path: '/rest/message:stream', headers: V1, json: { message: message('rest-3', 'one two') } },
  ],
  ['REST stream without a message', { path: '/rest/message:stream', headers: V1, json: {} }],
  ['REST get of an unknown task', { path: '/rest/tasks/missing', headers: V1 }],
  [
    'REST get with a bad historyLength',
    { path: '/rest/tasks/missing?historyLength=abc', headers: V1 },
  ],
  [
    'REST get with a negative historyLength',
    { path: '/rest/tasks/missing?historyLength=-1', headers: V1 },
  ],
  [
    'REST get with historyLength 1',
    (taskId) => ({ path: `/rest/tasks/${taskId}?historyLength=1`, headers: V1 }),
  ],
  [
    'REST cancel of an unknown task',
    { path: '/rest/tasks/missing:cancel', method: 'POST', headers: V1 },
  ],
  [
    'REST cancel of a completed task',
    (taskId) => ({ path: `/rest/tasks/${taskId}:cancel`, method: 'POST', headers: V1 }),
  ],
  [
    'REST subscribe to an unknown task',
    { path: '/rest/tasks/missing:subscribe', method: 'POST', headers: V1 },
  ],
  [
    'REST subscribe to a finished task',
    (taskId) => ({ path: `/rest/tasks/${taskId}:subscribe`, headers: V1 }),
  ],
  ['REST list with pageSize 0', { path: '/rest/tasks?pageSize=0', headers: V1 }],
  ['REST list with pageSize 5x', { path: '/rest/tasks?pageSize=5x', headers: V1 }],
  ['REST list with an unknown status', { path: '/rest/tasks?status=BOGUS', headers: V1 }],
  [
    'REST list with a bad timestamp',
    { path: '/rest/tasks?statusTimestampAfter=yesterday', headers: V1 },
  ],
  [
    'REST list by context',
    { path: '/rest/tasks?contextId=parity-context&includeArtifacts=true', headers: V1 },
  ],
  [
    'REST list by context and status',
    {
      path: '/rest/tasks?contextId=parity-context&status=TASK_STATE_COMPLETED&historyLength=0',
      headers: V1,
    },
  ],
  ['REST extended card', { path: '/rest/extendedAgentCard', headers: V1 }],
  [
    'REST push config create',
    (taskId) => ({
      path: `/rest/tasks/${taskId}/pushNotificationConfigs`,
      headers: V1,
      json: { url: 'http://example.com/hook' },
    }),
  ],
  [
    'REST push config list',
    (taskId) => ({ path: `/rest/tasks/${taskId}/pushNotificationConfigs`, headers: V1 }),
  ],
  ['REST with A2A-Version 2.0', { path: '/rest/tasks/missing', headers: { 'A2A-Version': '2.0' } }],
  ['REST under a tenant', { path: '/rest/acme/tasks/missing', headers: V1 }],
  [
    'REST send without A2A-Version',
    { path: '/rest/message:send', json: { message: message('rest-4', 'no header') } },
  ],
  [
    'v0.3 REST send',
    {
      path: '/rest/v1/message:send',
      json: {
        message: { messageId: 'legacy-3', role: 'ROLE_USER', content: [{ text: 'v03 rest' }] },
        configuration: { blocking: true },
      },
    },
  ],
  ['v0.3 REST send without a message', { path: '/rest/v1/message:send', json: {} }],
  [
    'v0.3 REST send with invalid JSON',
    { path: '/rest/v1/message:send', headers: { 'content-type': 'application/json' }, raw: '{bad' },
  ],
  [
    'v0.3 REST send with a bad part',
    {
      path: '/rest/v1/message:send',
      json: { message: { messageId: 'legacy-4', role: 'ROLE_USER', content: [{}] } },
    },
  ],
  [
    'v0.3 REST send with a bad role',
    {
      path: '/rest/v1/message:send',
      json: { message: { messageId: 'legacy-5', content: [{ text: 'x' }] } },
    },
  ],
  [
    'v0.3 REST stream',
    {
      path: '/rest/v1/message:stream',
      json: {
        message: {
          messageId: 'legacy-6',
          role: 'ROLE_USER',
          content: [{ text: 'p q' }, { data: { data: { a: 1 } } }],
        },
      },
    },
  ],
  ['v0.3 REST get of an unknown task', { path: '/rest/v1/tasks/missing' }],
  ['v0.3 REST get', (taskId) => ({ path: `/rest/v1/tasks/${taskId}?history_length=1` })],
  [
    'v0.3 REST cancel of a completed task',
    (taskId) => ({ path: `/rest/v1/tasks/${taskId}:cancel`, method: 'POST' }),
  ],
  [
    'v0.3 REST subscribe to a finished task',
    (taskId) => ({ path: `/rest/v1/tasks/${taskId}:subscribe`, method: 'POST' }),
  ],
  ['v0.3 REST extended card', { path: '/rest/v1/card' }],
  [
    'v0.3 REST push config list',
    (taskId) => ({ path: `/rest/v1/tasks/${taskId}/pushNotificationConfigs` }),
  ],
];

async function completedTaskId(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/rest/message:send`, {
    method: 'POST',
    headers: { ...V1, 'content-type': 'application/json' },
    body: JSON.stringify({ message: message(globalThis.crypto.randomUUID(), 'done already') }),
  });
  const body = (await response.json()) as { task: { id: string } };
  return body.task.id;
}

describe('our Hono mount next to the SDK Express adapters', () => {
  let ours: ServedAgent;
  let reference: ExpressServedAgent;
  const taskIds = new Map<string, string>();

  beforeAll(async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    ours = await serveAgent(createEchoAgent());
    reference = await serveAgentWithExpress(createEchoAgent());
    taskIds.set(ours.baseUrl, await completedTaskId(ours.baseUrl));
    taskIds.set(reference.baseUrl, await completedTaskId(reference.baseUrl));
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await Promise.all([ours?.close(), reference?.close()]);
  });

  const send = (baseUrl: string, request: Case[1]) =>
    exchange(
      baseUrl,
      typeof request === 'function' ? request(taskIds.get(baseUrl) ?? '') : request,
    );

  it.each(cases)('answers %s exactly as Express does', async (_name, request) => {
    const expected = await send(reference.baseUrl, request);
    const actual = await send(ours.baseUrl, request);
    expect(actual).toEqual(expected);
  });

  it.each([
    ['the v0.3 hybrid card (no A2A-Version)', {}],
    ['the v0.3 card for A2A-Version 0.3', { 'A2A-Version': '0.3' }],
  ])(
    'answers %s as Express does, its additionalInterfaces with the main one too',
    async (_name, headers) => {
      const request = { path: '/.well-known/agent-card.json', headers };
      const expected = await send(reference.baseUrl, request);
      const actual = await send(ours.baseUrl, request);
      const card = structuredClone(expected.body) as Record<string, unknown>;
      // v0.3: additionalInterfaces SHOULD include the main url and preferredTransport too.
      card.additionalInterfaces = [
        { url: card.url, transport: card.preferredTransport },
        ...(card.additionalInterfaces as unknown[]),
      ];
      expect(actual).toEqual({ ...expected, body: card });
    },
  );

  it('streams appended ticks exactly as Express does, over each binding and version', async () => {
    const [ourTicker, referenceTicker] = await Promise.all([
      serveAgent(createTickerAgent()),
      serveAgentWithExpress(createTickerAgent()),
    ]);
    try {
      const requests: ExchangeRequest[] = [
        {
          path: '/jsonrpc',
          headers: V1,
          json: rpc('SendStreamingMessage', { message: message('t-1', '3 every 20ms') }),
        },
        {
          path: '/rest/message:stream',
          headers: V1,
          json: { message: message('t-2', '3 every 20ms') },
        },
        {
          path: '/jsonrpc',
          json: rpc('message/stream', { message: legacyMessage('t-3', '3 every 20ms') }),
        },
        {
          path: '/rest/v1/message:stream',
          json: {
            message: { messageId: 't-4', role: 'ROLE_USER', content: [{ text: '3 every 20ms' }] },
          },
        },
      ];
      for (const request of requests) {
        const expected = await exchange(referenceTicker.baseUrl, request);
        const actual = await exchange(ourTicker.baseUrl, request);
        expect(actual).toEqual(expected);
        expect(JSON.stringify(actual.body)).toContain('"append":true');
      }
    } finally {
      await Promise.all([ourTicker.close(), referenceTicker.close()]);
    }
  });

  it('answers 304 to a matching If-None-Match (and 200 to no-cache), per card version, as Express does', async () => {
    for (const headers of [V1, {}]) {
      const results = [];
      for (const served of [reference, ours]) {
        const first = await fetch(served.cardUrl, { headers });
        const etag = first.headers.get('etag') ?? '';
        // fetch adds `Cache-Control: no-cache` to conditional requests unless one is given.
        const conditional = { ...headers, 'If-None-Match': etag, 'Cache-Control': 'max-age=0' };
        const again = await fetch(served.cardUrl, { headers: conditional });
        const forced = await fetch(served.cardUrl, {
          headers: { ...conditional, 'Cache-Control': 'no-cache' },
        });
        results.push({
          etag: /^W\/"[0-9a-f]{16}"$/.test(etag),
          cacheControl: first.headers.get('cache-control'),
          vary: first.headers.get('vary'),
          status: again.status,
          body: await again.text(),
          forcedStatus: forced.status,
        });
        await forced.body?.cancel();
      }
      expect(results[1]).toEqual(results[0]);
      expect(results[1]).toMatchObject({ etag: true, status: 304, body: '', forcedStatus: 200 });
    }
  });
});
