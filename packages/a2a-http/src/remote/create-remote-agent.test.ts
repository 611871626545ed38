import {
  type AgentEvent,
  AgentFailureError,
  CancellationError,
  createTaskRunner,
  isValidAgentName,
} from '@agentport/core';
import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MalformedResponseError } from '../errors/malformed-response-error.ts';
import { RemoteUnreachableError } from '../errors/remote-unreachable-error.ts';
import { createA2AHttpServer } from '../server/create-a2a-http-server.ts';
import { failingAgent } from '../testing/failing-agent.ts';
import { type Served, serve } from '../testing/serve.ts';
import { agentNameFromCard } from './agent-name-from-card.ts';
import { createRemoteAgent } from './create-remote-agent.ts';

const failing = failingAgent;

const tickerServer = createA2AHttpServer({
  agent: createTickerAgent(),
  card: { name: 'Tick Tock Service!', version: '1.2.3' },
});
let ticker: Served;
let echo: Served;
let failure: Served;

beforeAll(async () => {
  ticker = await serve(tickerServer);
  echo = await serve(createA2AHttpServer({ agent: createEchoAgent() }));
  failure = await serve(createA2AHttpServer({ agent: failing }));
});

afterAll(async () => {
  await Promise.all([ticker.stop(), echo.stop(), failure.stop()]);
});

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const collected: AgentEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

describe('createRemoteAgent', () => {
  it('takes its identity from the card, with the name made a valid agent name', async () => {
    const remote = await createRemoteAgent({ baseUrl: ticker.url });
    expect(remote.name).toBe('tick-tock-service');
    expect(remote.description).toContain('tick 1');
    expect(remote.card).toMatchObject({ name: 'Tick Tock Service!', version: '1.2.3' });
    expect(remote.tools).toEqual([]);
    const named = await createRemoteAgent({
      baseUrl: ticker.url,
      name: 'clock',
      description: 'Ticks',
    });
    expect(named).toMatchObject({ name: 'clock', description: 'Ticks' });
  });

  it('invokes the remote agent and resolves with its output', async () => {
    const remote = await createRemoteAgent({ baseUrl: `${echo.url}/.well-known/agent.json` });
    expect(await remote.invoke('hello from afar')).toBe('hello from afar');
  });

  it('streams the remote progress as text deltas, then the final output', async () => {
    const remote = await createRemoteAgent({ baseUrl: ticker.url });
    const events = await collect(remote.stream('3 every 100ms'));
    const deltas = events.filter((event) => event.type === 'text-delta');
    // One delta per change the remote reports; a loaded machine may report two ticks at once.
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(deltas.map((event) => event.delta).join('')).toBe('tick 1\ntick 2\ntick 3');
    expect(events.at(-1)).toEqual({ type: 'done', output: 'tick 1\ntick 2\ntick 3' });
  });

  it('invokes in one request: a create that long-polls, however long the task runs', async () => {
    const requests: string[] = [];
    const recording: typeof fetch = (input, init) => {
      const url = new URL(String(input));
      requests.push(
        `${init?.method ?? 'GET'} ${url.pathname.replace(/[0-9a-f-]{36}/, '{id}')}${url.search}`,
      );
      return fetch(input, init);
    };
    const remote = await createRemoteAgent({ baseUrl: ticker.url, fetch: recording });
    requests.length = 0;
    expect(await remote.invoke('4 every 40ms')).toBe('tick 1\ntick 2\ntick 3\ntick 4');
    expect(requests).toEqual(['POST /tasks?wait=25']);
  });

  it('falls back to long-polling when the remote offers no events stream', async () => {
    const requests: string[] = [];
    const withoutEvents =
      (advertise: boolean): typeof fetch =>
      async (input, init) => {
        const url = new URL(String(input));
        requests.push(url.pathname);
        if (url.pathname.endsWith('/events')) return new Response('{}', { status: 404 });
        const response = await fetch(input, init);
        if (!url.pathname.endsWith('/agent.json')) return response;
        const card = await response.json();
        return Response.json({ ...card, capabilities: { streaming: advertise } });
      };
    for (const advertise of [false, true]) {
      requests.length = 0;
      const remote = await createRemoteAgent({
        baseUrl: ticker.url,
        fetch: withoutEvents(advertise),
      });
      expect(await collect(remote.stream('2 every 20ms'))).toEqual([
        { type: 'text-delta', delta: 'tick 1\ntick 2' },
        { type: 'done', output: 'tick 1\ntick 2' },
      ]);
      expect(requests.some((path) => path.endsWith('/events'))).toBe(advertise);
    }
  });

  it('rejects with the remote error code and message when the remote task fails', async () => {
    const remote = await createRemoteAgent({ baseUrl: failure.url });
    const error = await remote.invoke('x').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentFailureError);
    expect(error).toMatchObject({
      code: 'quota_exceeded',
      message: 'Out of quota',
      agentName: 'failing',
    });
    const events = await collect(remote.stream('x'));
    expect(events.at(-1)).toEqual({
      type: 'error',
      code: 'quota_exceeded',
      message: 'Out of quota',
    });
  });

  it("answers the remote's refusal of the input as the caller's error (400), as a local agent would", async () => {
    const remote = await createRemoteAgent({ baseUrl: ticker.url });
    const error = await remote.invoke('banana').catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(AgentFailureError);
    expect(error).toMatchObject({ code: 'invalid_input', status: 400 });
    const local = await createTickerAgent()
      .invoke('banana')
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ message: (local as Error).message });
  });

  it('rejects with a 500 remote_task_canceled when the remote task is canceled over there', async () => {
    const remote = await createRemoteAgent({ baseUrl: ticker.url });
    const invocation = remote.invoke('200 every 20ms');
    await expect
      .poll(async () => (await tickerServer.runner.list({ status: 'working' })).tasks.length)
      .toBe(1);
    const [running] = (await tickerServer.runner.list({ status: 'working' })).tasks;
    await tickerServer.runner.cancel(running?.id ?? '');
    const error = await invocation.catch((caught: unknown) => caught);
    // Not the caller's cancel: not the 409 `canceled` a caller's abort gives.
    expect(error).not.toBeInstanceOf(CancellationError);
    expect(error).toMatchObject({ code: 'remote_task_canceled', status: 500 });
    expect((error as Error).message).toBe(`The remote task '${running?.id}' was canceled`);
  });

  it.each(['invoke', 'stream'] as const)(
    'cancels the remote task when the caller aborts %s',
    async (mode) => {
      const remote = await createRemoteAgent({ baseUrl: ticker.url });
      const controller = new AbortController();
      const run =
        mode === 'invoke'
          ? remote.invoke('50 every 50ms', { signal: controller.signal })
          : collect(remote.stream('50 every 50ms', { signal: controller.signal }));
      await expect
        .poll(async () => (await tickerServer.runner.list({ status: 'working' })).tasks.length)
        .toBe(1);
      const [running] = (await tickerServer.runner.list({ status: 'working' })).tasks;
      controller.abort();
      if (mode === 'invoke') await expect(run).rejects.toBeInstanceOf(CancellationError);
      else expect((await run).at(-1)).toMatchObject({ type: 'error', code: 'canceled' });
      await expect
        .poll(async () => (await tickerServer.runner.get(running?.id ?? '')).status)
        .toBe('canceled');
    },
  );

  it('is a real Agent: a local task runner can run it', async () => {
    const remote = await createRemoteAgent({ baseUrl: echo.url, name: 'far-echo' });
    const runner = createTaskRunner({ agent: remote });
    const task = await runner.submit('through two runners');
    expect(await runner.wait(task.id)).toMatchObject({
      agentName: 'far-echo',
      status: 'completed',
      output: 'through two runners',
    });
    await runner.close();
  });

  it('can be served again: a server in front of a remote agent', async () => {
    const remote = await createRemoteAgent({ baseUrl: echo.url });
    const relay = await serve(createA2AHttpServer({ agent: remote }));
    const relayed = await createRemoteAgent({ baseUrl: relay.url, name: 'relayed' });
    expect(await relayed.invoke('two hops')).toBe('two hops');
    await relay.stop();
  });

  it('tells its callers a remote that went away is unreachable, without its address', async () => {
    const served = await serve(createA2AHttpServer({ agent: createEchoAgent() }));
    const remote = await createRemoteAgent({ baseUrl: served.url, name: 'gone' });
    await served.stop();
    for (const run of [
      () => remote.invoke('anyone?'),
      async () => {
        const last = (await collect(remote.stream('anyone?'))).at(-1);
        throw Object.assign(new Error(String(last?.type)), last);
      },
    ]) {
      const error = await run().catch((caught: unknown) => caught);
      expect(error).toMatchObject({
        code: 'remote_unreachable',
        message: "Remote agent 'gone' cannot be reached",
      });
      expect((error as Error).message).not.toContain(new URL(served.url).port);
    }
    const error = await remote.invoke('x').catch((caught: unknown) => caught);
    expect((error as Error).cause).toBeInstanceOf(RemoteUnreachableError);
    expect(((error as Error).cause as Error).message).toContain(new URL(served.url).port);
  });

  it('fails with a clear error when the remote is unreachable or its card is invalid', async () => {
    const closed = await serve(new Hono());
    await closed.stop();
    await expect(createRemoteAgent({ baseUrl: closed.url })).rejects.toBeInstanceOf(
      RemoteUnreachableError,
    );

    const bad = new Hono();
    bad.get('/.well-known/agent.json', (context) => context.json({ endpoint: 'http://x' }));
    const badServer = await serve(bad);
    const error = await createRemoteAgent({ baseUrl: badServer.url }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as Error).message).toContain('getCard failed');
    expect((error as Error).message).toContain('name');
    await badServer.stop();
  });
});

describe('agentNameFromCard', () => {
  it.each([
    ['Echo', 'echo'],
    ['Tick Tock Service!', 'tick-tock-service'],
    ['Crème Brûlée Bot', 'creme-brulee-bot'],
    ['my_agent-2', 'my_agent-2'],
    ['!!!', 'remote-agent'],
    ['a'.repeat(70), 'a'.repeat(64)],
  ])('turns %s into %s', (cardName, expected) => {
    const name = agentNameFromCard(cardName);
    expect(name).toBe(expected);
    expect(isValidAgentName(name)).toBe(true);
  });
});
