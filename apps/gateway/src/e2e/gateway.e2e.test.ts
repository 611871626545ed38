import { request as httpRequest } from 'node:http';
import { type Task, TaskState } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { createA2AHttpClient, createRemoteAgent } from '@agentport/a2a-http';
import { createRemoteSdkAgent } from '@agentport/a2a-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, startGatewayProcess } from '../testing/gateway-process.ts';
import { FLAVOURS, officialClient, outputOf, textRequest } from '../testing/sdk-client.ts';
import { readEvents } from '../testing/sse.ts';

let gateway: GatewayProcess;
const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  gateway = await startGatewayProcess();
});

afterAll(async () => {
  await gateway?.stop();
});

describe('the gateway process', () => {
  it('prints one line per surface with its URL', () => {
    const output = gateway.output();
    for (const surface of [
      'A2A (hand-rolled)',
      'A2A (official SDK)',
      'REST/SSE',
      'OpenAI Agents',
      'Docs',
    ]) {
      expect(output).toContain(surface);
    }
    // Every URL whole: none a bare path the reader would have to complete (behind a prefix
    // proxy the bare `/agents/{name}/stream` pointed past it). The config line names a file.
    const [config, ...rest] = output.split('\n').filter((line) => line.startsWith('  '));
    expect(config).toMatch(/^ {2}config {14}none \(no agentport\.config\.ts, .* in \/.+\)$/);
    expect(rest.join('\n')).not.toMatch(/\s\/\w/);
  });

  it.each(FLAVOURS)(
    'answers the official SDK client over $binding (A2A $version)',
    async (flavour) => {
      const [echo, ticker] = await Promise.all([
        officialClient(`${gateway.url}/a2a/echo/.well-known/agent-card.json`, flavour),
        officialClient(`${gateway.url}/a2a/ticker/.well-known/agent-card.json`, flavour),
      ]);
      const task = (await echo.sendMessage(textRequest('hello from the sdk'))) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(outputOf(task)).toBe('hello from the sdk');
      const streamed: string[] = [];
      for await (const event of ticker.sendMessageStream(textRequest('3 every 30ms'))) {
        streamed.push(event.payload?.$case ?? 'none');
      }
      expect(streamed.filter((kind) => kind === 'artifactUpdate').length).toBeGreaterThanOrEqual(2);
      expect(streamed.at(-1)).toBe('statusUpdate');
    },
  );

  it.each([
    ['the base with a trailing slash', '/a2a/echo/', undefined],
    ['the card URL with an empty path', '/a2a/echo/.well-known/agent-card.json', ''],
  ])(
    'answers the official client made from %s, as the README says',
    async (_case, path, cardPath) => {
      const client = await new ClientFactory().createFromUrl(`${gateway.url}${path}`, cardPath);
      const task = (await client.sendMessage(textRequest('readme way'))) as Task;
      expect(outputOf(task)).toBe('readme way');
    },
  );

  it('lets the official client discover the default agent from the root card', async () => {
    const card = await new DefaultAgentCardResolver().resolve(gateway.url);
    expect(card.name).toBe('assistant');
    expect(card.skills.map((skill) => skill.id)).toContain('assistant.calculator');
  });

  it('serves our SDK remote agent', async () => {
    const remote = await createRemoteSdkAgent({ url: `${gateway.url}/a2a/assistant` });
    await expect(remote.invoke('what is 2 + 2')).resolves.toBe('2 + 2 = 4');
  });

  it('serves the hand-rolled A2A surface to our client and remote agent', async () => {
    const client = createA2AHttpClient({ baseUrl: `${gateway.url}/agents/ticker` });
    const card = await client.getCard();
    expect(card).toMatchObject({ name: 'ticker', endpoint: `${gateway.url}/agents/ticker` });
    const created = await client.createTask({ input: '100 every 50ms' });
    const canceled = await client.cancelTask(created.id);
    expect(canceled.status).toBe('canceled');
    const remote = await createRemoteAgent({ baseUrl: gateway.url });
    expect(remote.name).toBe('assistant');
    await expect(remote.invoke('count the words in: a b c')).resolves.toBe('3 words');
  });

  it('streams REST/SSE events as they happen', async () => {
    const started = performance.now();
    let firstAt = 0;
    const response = await fetch(`${gateway.url}/agents/ticker/stream`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: '3 every 200ms' }),
    });
    // The Node fast path names where the run's stream is rejoined.
    expect(response.headers.get('content-location')).toMatch(
      /^\/agents\/ticker\/tasks\/[0-9a-f-]{36}\/stream$/,
    );
    const events = await readEvents(response, () => {
      firstAt ||= performance.now() - started;
    });
    expect(events.map((event) => event.event)).toEqual([
      'text-delta',
      'text-delta',
      'text-delta',
      'done',
    ]);
    expect(events.map((event) => event.id)).toEqual(['3', '4', '5', '6']);
    expect(firstAt).toBeLessThan(300);
    expect(JSON.parse(events[3]?.data ?? '')).toEqual({ output: 'tick 1\ntick 2\ntick 3' });
  });

  it('streams compat runs with tool calls and answers RunResponse', async () => {
    const response = await fetch(`${gateway.url}/compat/runs`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ agent_name: 'assistant', input: 'repeat hello', stream: true }),
    });
    const events = await readEvents(response);
    expect(events.map((event) => event.event)).toEqual(['handoff', 'text-delta', 'done']);
    const run = await fetch(`${gateway.url}/compat/runs`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ agent_name: 'assistant', input: 'what is 3 * 3' }),
    });
    expect(await run.json()).toMatchObject({
      output: '3 * 3 = 9',
      agent: 'assistant',
      tool_calls: [{ name: 'calculator' }],
    });
  });

  it('answers bad input with clear errors and stays up', async () => {
    const cases: Array<[string, RequestInit, number, string]> = [
      ['/agents/echo/invoke', { method: 'POST', headers: json, body: '{' }, 400, 'invalid_json'],
      [
        '/agents/echo/invoke',
        { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' },
        415,
        'unsupported_media_type',
      ],
      [
        '/agents/echo/invoke',
        {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ input: 'x'.repeat(2 * 1024 * 1024) }),
        },
        413,
        'payload_too_large',
      ],
      [
        '/agents/nobody/invoke',
        { method: 'POST', headers: json, body: '{"input":"x"}' },
        404,
        'agent_not_found',
      ],
      ['/tasks/unknown', {}, 404, 'task_not_found'],
      ['/compat/runs', { method: 'GET' }, 405, 'method_not_allowed'],
    ];
    for (const [path, init, status, code] of cases) {
      const response = await fetch(`${gateway.url}${path}`, init);
      expect(response.status, path).toBe(status);
      expect(await response.json()).toMatchObject({ error: { code } });
    }
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  });

  it('answers 404 not_found to a path with a dot segment, which would resolve to another route', async () => {
    const { hostname, port } = new URL(gateway.url);
    const send = (method: string, path: string) =>
      new Promise<{ status?: number; requestId?: string; body: unknown }>((resolve, reject) => {
        // A path as written: fetch and URL strings resolve dot segments before sending.
        const sent = httpRequest({ hostname, port, path, method, headers: json });
        sent.on('response', async (answer) => {
          let text = '';
          for await (const chunk of answer) text += chunk;
          const requestId = answer.headers['x-request-id'] as string | undefined;
          resolve({ status: answer.statusCode, requestId, body: JSON.parse(text) });
        });
        sent.on('error', reject);
        sent.end(method === 'POST' ? '{"input":"x"}' : undefined);
      });
    for (const [method, path] of [
      ['POST', '/agents/ticker/../echo/invoke'],
      ['POST', '/agents/ticker/%2e%2e/echo/stream'],
      ['POST', '/agents/ticker/.%2E/echo/tasks?wait=1'],
      ['POST', '/a2a/ticker/../echo/jsonrpc'],
      ['GET', '/a2a/ticker/../echo/.well-known/agent-card.json'],
      ['POST', '/compat/agents/../runs'],
      ['GET', '/./healthz'],
      // URL parsing ends a path at `#` too: this one resolves to `/agents/echo/invoke/`.
      ['POST', '/agents/echo/invoke/x/..#'],
    ] as const) {
      const answer = await send(method, path);
      expect(answer.status, path).toBe(404);
      expect(answer.requestId, path).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.body, path).toEqual({
        error: { code: 'not_found', message: `No route for ${path.split(/[?#]/)[0]}` },
      });
    }
    // A segment that only starts with a dot is a name like any other.
    expect((await send('GET', '/.well-known/agent.json')).status).toBe(200);
  });
});
