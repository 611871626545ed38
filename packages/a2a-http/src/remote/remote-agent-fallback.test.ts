import http from 'node:http';
import type { AgentEvent } from '@agentport/core';
import { describe, expect, it } from 'vitest';
import { serveNodeForFile } from '../testing/serve.ts';
import { createRemoteAgent } from './create-remote-agent.ts';

const working = {
  id: 't1',
  agentName: 'fake',
  status: 'working',
  input: '2 ticks',
  output: '',
  metadata: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const completed = { ...working, status: 'completed', output: 'tick 1\ntick 2' };
const firstEvent = `event: task\nid: 1\ndata: ${JSON.stringify({ task: { ...working, output: 'tick 1' } })}\n\n`;

/** Requests the fake server saw, as `METHOD /path?query` without the variant prefix. */
const requests: string[] = [];
/** The `/stalled` event streams, still open. */
const stalledStreams: http.ServerResponse[] = [];

// A fake remote whose events route misbehaves; the first path segment picks how:
// `/broken` sends one complete event, half of the next, then destroys the socket;
// `/html` answers a web page; `/down` breaks its events stream and fails its long-poll too;
// `/stalled` sends one event and then nothing, not even a heartbeat, keeping the connection open.
const server = http.createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://fake');
  const [, variant = '', ...rest] = url.pathname.split('/');
  const path = `/${rest.join('/')}`;
  requests.push(`${request.method} ${path}${url.search}`);
  const json = (status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  request.resume();
  if (path === '/.well-known/agent.json') {
    json(200, {
      name: 'fake',
      endpoint: `http://${request.headers.host}/${variant}`,
      capabilities: { streaming: true, longPolling: true },
      skills: [],
    });
  } else if (request.method === 'POST' && path === '/tasks') {
    json(201, { task: working });
  } else if (request.method === 'POST' && path === '/tasks/t1/cancel') {
    json(200, { task: { ...working, status: 'canceled' } });
  } else if (path === '/tasks/t1/events' && variant === 'html') {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<h1>Please log in</h1>');
  } else if (path === '/tasks/t1/events' && variant === 'stalled') {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(firstEvent);
    stalledStreams.push(response);
  } else if (path === '/tasks/t1/events') {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(firstEvent);
    response.write('event: task\nid: 2\ndata: {"task":{"id":"t1","sta', () =>
      request.socket.destroy(),
    );
  } else if (path === '/tasks/t1' && variant === 'down') {
    json(500, { error: { code: 'internal_error', message: 'The store is gone' } });
  } else if (path === '/tasks/t1') {
    json(200, { task: completed });
  } else {
    json(404, { error: { code: 'not_found', message: 'No such route' } });
  }
});
const served = serveNodeForFile(server);

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const collected: AgentEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

/** Lets a cancel fired when the run ended reach the fake server before it is looked for. */
function settled(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 100));
}

const transports = [
  ['node:http', {}],
  ['fetch', { fetch: globalThis.fetch }],
] as const;

describe.each(transports)('a remote agent whose events route fails (%s)', (_, options) => {
  it('falls back to long-polling when the events stream breaks, after streaming what arrived', async () => {
    const remote = await createRemoteAgent({ baseUrl: `${served.url}/broken`, ...options });
    requests.length = 0;
    expect(await collect(remote.stream('2 ticks'))).toEqual([
      { type: 'text-delta', delta: 'tick 1' },
      { type: 'text-delta', delta: '\ntick 2' },
      { type: 'done', output: 'tick 1\ntick 2' },
    ]);
    await settled();
    expect(requests).toEqual(['POST /tasks', 'GET /tasks/t1/events', 'GET /tasks/t1?wait=25']);
  });

  it('falls back to long-polling when the events route answers something else than SSE', async () => {
    const remote = await createRemoteAgent({ baseUrl: `${served.url}/html`, ...options });
    requests.length = 0;
    // No event came before the fallback: the whole output is one delta, so the deltas add up.
    expect(await collect(remote.stream('2 ticks'))).toEqual([
      { type: 'text-delta', delta: 'tick 1\ntick 2' },
      { type: 'done', output: 'tick 1\ntick 2' },
    ]);
    await settled();
    expect(requests).toEqual(['POST /tasks', 'GET /tasks/t1/events', 'GET /tasks/t1?wait=25']);
  });

  it('falls back to long-polling when the events stream goes silent for idleTimeoutMs', async () => {
    const remote = await createRemoteAgent({
      baseUrl: `${served.url}/stalled`,
      ...options,
      idleTimeoutMs: 150,
    });
    requests.length = 0;
    const started = performance.now();
    expect(await collect(remote.stream('2 ticks'))).toEqual([
      { type: 'text-delta', delta: 'tick 1' },
      { type: 'text-delta', delta: '\ntick 2' },
      { type: 'done', output: 'tick 1\ntick 2' },
    ]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    await settled();
    expect(requests).toEqual(['POST /tasks', 'GET /tasks/t1/events', 'GET /tasks/t1?wait=25']);
    // The agent let go of the silent stream.
    await expect.poll(() => stalledStreams.every((stream) => stream.destroyed)).toBe(true);
  });

  it('refuses an idleTimeoutMs that is not a positive number before fetching the card', async () => {
    requests.length = 0;
    await expect(
      createRemoteAgent({
        baseUrl: `${served.url}/stalled`,
        ...options,
        idleTimeoutMs: Number.NaN,
      }),
    ).rejects.toMatchObject({ code: 'invalid_input', field: 'idleTimeoutMs' });
    expect(requests).toEqual([]);
  });

  it('fails the run, and cancels the remote task, when the long-poll fails as well', async () => {
    const remote = await createRemoteAgent({ baseUrl: `${served.url}/down`, ...options });
    requests.length = 0;
    const events = await collect(remote.stream('2 ticks'));
    expect(events).toEqual([
      { type: 'text-delta', delta: 'tick 1' },
      expect.objectContaining({ type: 'error', code: 'remote_http_error' }),
    ]);
    await expect.poll(() => requests).toContain('POST /tasks/t1/cancel');
  });
});
