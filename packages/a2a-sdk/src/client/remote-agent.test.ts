import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { type AgentCard, ListTasksRequest } from '@a2a-js/sdk';
import {
  type Agent,
  type AgentEvent,
  AgentFailureError,
  AgentPortError,
  CancellationError,
  defineAgent,
  InvalidInputError,
} from '@agentport/core';
import { createAssistantAgent, createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RemoteAgentCardError } from '../errors/remote-agent-card-error.ts';
import { type ExpressServedAgent, serveAgentWithExpress } from '../test-support/express-server.ts';
import { type Listening, listenFetch } from '../test-support/listen.ts';
import {
  type ClientFlavour,
  eventually,
  FLAVOURS,
  officialClient,
} from '../test-support/sdk-client.ts';
import { type ServedAgent, serveAgent, serveLegacyCard } from '../test-support/servers.ts';
import { agentCardUrlOf, agentNameOf, createRemoteSdkAgent } from './remote-agent.ts';

async function collect(agent: Agent, input: string, signal?: AbortSignal): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of agent.stream(input, signal ? { signal } : {})) events.push(event);
  return events;
}

const texts = (events: AgentEvent[]) =>
  events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []));

const legacyCards: Listening[] = [];

/**
 * A remote agent talking to an agent served at `baseUrl` over one binding and version: v1.0 by
 * preference from its own card, v0.3 through a card offering only that v0.3 binding.
 */
async function remoteOver(
  baseUrl: string,
  card: AgentCard,
  { binding, version }: ClientFlavour,
): Promise<Agent> {
  if (version === '1.0') return createRemoteSdkAgent({ url: baseUrl, preferredTransport: binding });
  const cardServer = await serveLegacyCard(card, binding);
  legacyCards.push(cardServer);
  return createRemoteSdkAgent({ url: cardServer.cardUrl });
}

/** Streams 'draft', appends ' more', then answers 'final answer': the output is replaced. */
const reviser = defineAgent({
  name: 'reviser',
  description: 'Drafts, then answers something else',
  async *run() {
    yield { type: 'text-delta', delta: 'draft' };
    await new Promise((resolve) => setTimeout(resolve, 20));
    yield { type: 'text-delta', delta: ' more' };
    await new Promise((resolve) => setTimeout(resolve, 20));
    return 'final answer';
  },
});

let ours: ServedAgent;
let reference: ExpressServedAgent;
let assistant: ServedAgent;

beforeAll(async () => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  [ours, reference, assistant] = await Promise.all([
    serveAgent(createEchoAgent()),
    serveAgentWithExpress(createEchoAgent()),
    serveAgent(createAssistantAgent()),
  ]);
});

afterAll(async () => {
  vi.restoreAllMocks();
  await Promise.all([
    ours?.close(),
    reference?.close(),
    assistant?.close(),
    ...legacyCards.map((cardServer) => cardServer.close()),
  ]);
});

describe.each([
  ['our Hono server', () => ours],
  ["the SDK's Express server", () => reference],
])('a remote agent on %s', (_name, served) => {
  it.each(['JSONRPC', 'HTTP+JSON'] as const)(
    'takes its identity from the card and answers invoke and stream over %s',
    async (preferredTransport) => {
      const remote = await createRemoteSdkAgent({ url: served().baseUrl, preferredTransport });
      expect(remote.name).toBe('echo');
      expect(remote.description).toBe('Streams its input back word by word.');
      expect(await remote.invoke('hello from afar')).toBe('hello from afar');
      const events = await collect(remote, 'one two three');
      expect(texts(events).join('')).toBe('one two three');
      expect(events.at(-1)).toEqual({ type: 'done', output: 'one two three' });
    },
  );

  it('accepts the card URL itself', async () => {
    const remote = await createRemoteSdkAgent({ url: served().cardUrl, name: 'far-echo' });
    expect(remote.name).toBe('far-echo');
    expect(await remote.invoke('by card url')).toBe('by card url');
  });
});

describe('a remote agent streaming', () => {
  let ticker: ServedAgent;
  beforeAll(async () => {
    ticker = await serveAgent(createTickerAgent());
  });
  afterAll(async () => {
    await ticker?.close();
  });

  it('yields each event as it arrives, not one buffered answer', async () => {
    const remote = await createRemoteSdkAgent({ url: ticker.baseUrl });
    const arrivals: { delta: string; at: number }[] = [];
    const start = Date.now();
    for await (const event of remote.stream('3 every 150ms')) {
      if (event.type === 'text-delta')
        arrivals.push({ delta: event.delta, at: Date.now() - start });
    }
    expect(arrivals.map((arrival) => arrival.delta)).toEqual(['tick 1', '\ntick 2', '\ntick 3']);
    expect((arrivals[2]?.at ?? 0) - (arrivals[0]?.at ?? 0)).toBeGreaterThanOrEqual(250);
  });

  it('cancels the remote task when the caller aborts a stream', async () => {
    const remote = await createRemoteSdkAgent({ url: ticker.baseUrl });
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    for await (const event of remote.stream('50 every 100ms', { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'text-delta' && event.delta.includes('tick 2')) controller.abort();
    }
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'canceled' });
    const client = await officialClient(ticker.cardUrl, { binding: 'JSONRPC', version: '1.0' });
    const canceled = await eventually(async () => {
      const page = await client.listTasks(
        ListTasksRequest.fromJSON({ status: 'TASK_STATE_CANCELED' }),
      );
      return page.tasks.length > 0 ? page.tasks : undefined;
    });
    expect(canceled).toHaveLength(1);
  });

  it('cancels the remote task when the caller aborts an invoke', async () => {
    const remote = await createRemoteSdkAgent({
      url: ticker.baseUrl,
      preferredTransport: 'HTTP+JSON',
    });
    const client = await officialClient(ticker.cardUrl, { binding: 'JSONRPC', version: '1.0' });
    const before = (
      await client.listTasks(ListTasksRequest.fromJSON({ status: 'TASK_STATE_CANCELED' }))
    ).totalSize;
    const running = remote.invoke('50 every 100ms', { signal: AbortSignal.timeout(300) });
    await expect(running).rejects.toBeInstanceOf(CancellationError);
    await eventually(async () => {
      const page = await client.listTasks(
        ListTasksRequest.fromJSON({ status: 'TASK_STATE_CANCELED' }),
      );
      return page.totalSize > before ? page : undefined;
    });
    const working = await client.listTasks(
      ListTasksRequest.fromJSON({ status: 'TASK_STATE_WORKING' }),
    );
    expect(working.tasks).toEqual([]);
  });
});

interface StreamingServers {
  ticker: { baseUrl: string; card: AgentCard };
  reviser: { baseUrl: string; card: AgentCard };
  close(): Promise<unknown>;
}

describe.each([
  [
    'our Hono server',
    async (): Promise<StreamingServers> => {
      const [ticker, revising] = await Promise.all([
        serveAgent(createTickerAgent()),
        serveAgent(reviser),
      ]);
      return {
        ticker: { baseUrl: ticker.baseUrl, card: ticker.server.card },
        reviser: { baseUrl: revising.baseUrl, card: revising.server.card },
        close: () => Promise.all([ticker.close(), revising.close()]),
      };
    },
  ],
  [
    "the SDK's Express server",
    async (): Promise<StreamingServers> => {
      const [ticker, revising] = await Promise.all([
        serveAgentWithExpress(createTickerAgent()),
        serveAgentWithExpress(reviser),
      ]);
      return {
        ticker: { baseUrl: ticker.baseUrl, card: await ticker.requestHandler.getAgentCard() },
        reviser: { baseUrl: revising.baseUrl, card: await revising.requestHandler.getAgentCard() },
        close: () => Promise.all([ticker.close(), revising.close()]),
      };
    },
  ],
])('a remote agent streaming from %s', (_name, start) => {
  let servers: StreamingServers;
  beforeAll(async () => {
    servers = await start();
  });
  afterAll(async () => {
    await servers?.close();
  });

  it.each(FLAVOURS)('appends the chunks of the output over $binding v$version', async (flavour) => {
    const remote = await remoteOver(servers.ticker.baseUrl, servers.ticker.card, flavour);
    const events = await collect(remote, '3 every 20ms');
    expect(texts(events)).toEqual(['tick 1', '\ntick 2', '\ntick 3']);
    expect(events.at(-1)).toEqual({ type: 'done', output: 'tick 1\ntick 2\ntick 3' });
  });

  it.each(FLAVOURS)(
    'replaces the output when the remote replaces its artifact over $binding v$version',
    async (flavour) => {
      const remote = await remoteOver(servers.reviser.baseUrl, servers.reviser.card, flavour);
      const events = await collect(remote, 'go');
      expect(texts(events)).toEqual(['draft', ' more']);
      expect(events.at(-1)).toEqual({ type: 'done', output: 'final answer' });
      expect(await remote.invoke('go')).toBe('final answer');
    },
  );
});

describe('a remote agent whose consumer stops reading', () => {
  let ticker: ServedAgent;
  beforeAll(async () => {
    ticker = await serveAgent(createTickerAgent());
  });
  afterAll(async () => {
    await ticker?.close();
  });

  it.each(FLAVOURS)(
    'cancels the remote task it leaves unfinished over $binding v$version',
    async (flavour) => {
      const client = await officialClient(ticker.cardUrl, { binding: 'JSONRPC', version: '1.0' });
      const tasksIn = async (status: string) =>
        (await client.listTasks(ListTasksRequest.fromJSON({ status }))).totalSize;
      const canceledBefore = await tasksIn('TASK_STATE_CANCELED');
      const remote = await remoteOver(ticker.baseUrl, ticker.server.card, flavour);
      const seen: AgentEvent[] = [];
      for await (const event of remote.stream('100 every 100ms')) {
        seen.push(event);
        if (event.type === 'text-delta') break;
      }
      expect(seen).toEqual([{ type: 'text-delta', delta: 'tick 1' }]);
      await eventually(async () =>
        (await tasksIn('TASK_STATE_CANCELED')) > canceledBefore ? true : undefined,
      );
      expect(await tasksIn('TASK_STATE_WORKING')).toBe(0);
    },
  );
});

describe('a remote agent with tools', () => {
  it('replays the remote tool calls, tool results and handoffs as events', async () => {
    const remote = await createRemoteSdkAgent({ url: assistant.baseUrl });
    const math = await collect(remote, 'what is 2+3');
    expect(math.map((event) => event.type)).toEqual([
      'tool-call',
      'tool-result',
      'text-delta',
      'done',
    ]);
    expect(math[0]).toMatchObject({
      type: 'tool-call',
      name: 'calculator',
      input: { expression: '2+3' },
    });
    expect(math.at(-1)).toEqual({ type: 'done', output: '2+3 = 5' });
    const repeat = await collect(remote, 'repeat hi there');
    expect(repeat[0]).toEqual({ type: 'handoff', from: 'assistant', to: 'echo' });
    expect(repeat.at(-1)).toEqual({ type: 'done', output: 'hi there' });
  });
});

describe('a remote agent that fails', () => {
  let failing: ServedAgent;
  beforeAll(async () => {
    failing = await serveAgent(
      defineAgent({
        name: 'broken',
        description: 'Always fails',
        async *run() {
          yield { type: 'text-delta', delta: 'partial' };
          throw new AgentFailureError({ agentName: 'broken', message: 'Broken on purpose' });
        },
      }),
    );
  });
  afterAll(async () => {
    await failing?.close();
  });

  it('rejects invoke and ends its stream with the remote error', async () => {
    const remote = await createRemoteSdkAgent({ url: failing.baseUrl });
    await expect(remote.invoke('x')).rejects.toMatchObject({
      name: 'AgentFailureError',
      code: 'agent_failure',
      message: 'Broken on purpose',
    });
    const events = await collect(remote, 'x');
    expect(events.at(-1)).toEqual({
      type: 'error',
      code: 'agent_failure',
      message: 'Broken on purpose',
    });
  });

  it("answers the remote's refusal of the input as the caller's error (400)", async () => {
    const served = await serveAgent(createTickerAgent());
    try {
      const remote = await createRemoteSdkAgent({ url: served.baseUrl });
      await expect(remote.invoke('banana')).rejects.toMatchObject({
        code: 'invalid_input',
        status: 400,
      });
      expect((await collect(remote, 'banana')).at(-1)).toMatchObject({
        type: 'error',
        code: 'invalid_input',
      });
    } finally {
      await served.close();
    }
  });

  it('gives up on a card that never comes, after cardTimeoutMs', async () => {
    const sockets: Socket[] = [];
    const silent = createNetServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const started = Date.now();
    try {
      const error = await createRemoteSdkAgent({
        url: `http://127.0.0.1:${port}/a2a/x`,
        cardTimeoutMs: 200,
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RemoteAgentCardError);
      expect((error as Error).message).toContain('no answer within 200 ms');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("reports a remote that goes away mid-call as a remote agent error, without the remote's address", async () => {
    const served = await serveAgent(createEchoAgent('vanishing'));
    const remote = await createRemoteSdkAgent({ url: served.baseUrl });
    await served.close();
    const error = await remote.invoke('anyone?').catch((caught: unknown) => caught);
    expect(AgentPortError.isInstance(error) && error.code).toBe('remote_agent_error');
    // What failed, by its code; the address (a gateway's callers would be told it) stays in the cause.
    const { host } = new URL(served.baseUrl);
    expect((error as Error).message).toBe(
      "Remote agent 'vanishing' could not be called: fetch failed (ECONNREFUSED)",
    );
    expect(String(((error as Error).cause as Error).cause)).toContain(host);
  });
});

describe('a remote that answers with an HTTP error', () => {
  it("keeps the remote's answer body out of the error callers see (it stays in the cause)", async () => {
    const served = await serveAgent(createEchoAgent('fronted'));
    const card = (await (await fetch(agentCardUrlOf(served.baseUrl))).json()) as AgentCard;
    const secret = 'db-primary.internal.corp:5432';
    let origin = '';
    const front = await listenFetch(
      new Hono()
        .get('/.well-known/agent-card.json', (context) =>
          context.json(JSON.parse(JSON.stringify(card).replaceAll(served.baseUrl, origin))),
        )
        .post('*', (context) =>
          context.html(
            `<html><body>upstream\n${secret}${' filler'.repeat(1000)}</body></html>`,
            502,
          ),
        ).fetch,
    );
    origin = front.origin;
    try {
      const remote = await createRemoteSdkAgent({ url: front.origin });
      const invoked = await remote.invoke('x').catch((caught: unknown) => caught);
      const streamed = await (async () => {
        for await (const event of remote.stream('x')) if (event.type === 'error') return event;
        return undefined;
      })().catch((caught: unknown) => caught);
      for (const failure of [invoked, streamed]) {
        const message = (failure as { message: string }).message;
        expect(message).toMatch(/502/);
        expect(message).not.toContain(secret);
        expect(message).not.toContain('\n');
        expect(message.length).toBeLessThanOrEqual(400);
      }
      expect(String((invoked as { cause?: Error }).cause?.message)).toContain(secret);
    } finally {
      await front.close();
      await served.close();
    }
  });
});

describe('a remote that redirects', () => {
  it('is not followed: the message and its headers go nowhere else', async () => {
    const served = await serveAgent(createEchoAgent('moved'));
    const card = (await (await fetch(agentCardUrlOf(served.baseUrl))).json()) as AgentCard;
    const elsewhere: string[] = [];
    const other = await listenFetch(
      new Hono().all('*', (context) => {
        elsewhere.push(`${context.req.method} ${context.req.header('x-api-key')}`);
        return context.json({ jsonrpc: '2.0', id: 1, result: {} });
      }).fetch,
    );
    let origin = '';
    const front = await listenFetch(
      new Hono()
        .get('/.well-known/agent-card.json', (context) =>
          context.json(JSON.parse(JSON.stringify(card).replaceAll(served.baseUrl, origin))),
        )
        .post('*', (context) => context.redirect(`${other.origin}/elsewhere`, 307)).fetch,
    );
    origin = front.origin;
    try {
      const remote = await createRemoteSdkAgent({
        url: front.origin,
        headers: { 'X-API-Key': 'k' },
      });
      const error = await remote.invoke('x').catch((caught: unknown) => caught);
      expect(AgentPortError.isInstance(error) && error.code).toBe('remote_agent_error');
      expect((error as Error).message).toContain('fetch failed (unexpected redirect)');
      const streamed = await collect(remote, 'x');
      expect(streamed.at(-1)).toMatchObject({ type: 'error', code: 'remote_agent_error' });
      // Nor is the card's request: a card behind a redirect is refused.
      const moved = await listenFetch(
        new Hono().get('*', (context) =>
          context.redirect(`${front.origin}/.well-known/agent-card.json`, 301),
        ).fetch,
      );
      try {
        await expect(createRemoteSdkAgent({ url: moved.origin })).rejects.toBeInstanceOf(
          RemoteAgentCardError,
        );
      } finally {
        await moved.close();
      }
      expect(elsewhere).toEqual([]);
    } finally {
      await front.close();
      await other.close();
      await served.close();
    }
  });
});

describe('a remote agent card that cannot be used', () => {
  it('is a RemoteAgentCardError when the card is missing (404)', async () => {
    await expect(createRemoteSdkAgent({ url: `${ours.origin}/a2a/nobody` })).rejects.toBeInstanceOf(
      RemoteAgentCardError,
    );
  });

  it('is a RemoteAgentCardError when nothing listens', async () => {
    const served = await serveAgent(createEchoAgent('gone'));
    await served.close();
    const error = await createRemoteSdkAgent({ url: served.baseUrl }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(RemoteAgentCardError);
    expect(error).toMatchObject({ code: 'remote_agent_card_unavailable', status: 502 });
  });

  it('is a RemoteAgentCardError when the document is not an AgentCard', async () => {
    const notACard = await listenFetch(
      new Hono().get('*', (context) => context.json({ hello: 'world' })).fetch,
    );
    try {
      await expect(createRemoteSdkAgent({ url: notACard.origin })).rejects.toThrow(
        /not an A2A AgentCard/,
      );
    } finally {
      await notACard.close();
    }
  });

  it('is a RemoteAgentCardError when no interface of the card is at an absolute http(s) URL', async () => {
    const served = await serveAgent(createEchoAgent('relative'));
    const card = (await (await fetch(agentCardUrlOf(served.baseUrl))).json()) as AgentCard;
    const relative = await listenFetch(
      new Hono().get('*', (context) =>
        context.json(JSON.parse(JSON.stringify(card).replaceAll(served.baseUrl, '/s'))),
      ).fetch,
    );
    const mixed = await listenFetch(
      new Hono().get('*', (context) =>
        context.json({
          ...card,
          supportedInterfaces: [
            { ...card.supportedInterfaces[0], url: '/s/jsonrpc' },
            ...card.supportedInterfaces,
          ],
        }),
      ).fetch,
    );
    try {
      await expect(createRemoteSdkAgent({ url: relative.origin })).rejects.toThrow(
        /no interface at an absolute http\(s\) URL/,
      );
      // One interface out of reach among others: the others are used.
      expect(await (await createRemoteSdkAgent({ url: mixed.origin })).invoke('kept')).toBe('kept');
    } finally {
      await mixed.close();
      await relative.close();
      await served.close();
    }
  });

  it('is an InvalidInputError when the URL is not absolute', async () => {
    await expect(createRemoteSdkAgent({ url: 'a2a/echo' })).rejects.toBeInstanceOf(
      InvalidInputError,
    );
  });
});

describe('remote agent names and card URLs', () => {
  it('derives a valid agent name from the card name', () => {
    expect(agentNameOf('Echo Agent!')).toBe('echo-agent');
    expect(agentNameOf('Über_Bot 2')).toBe('uber_bot-2');
    expect(agentNameOf('***')).toBe('remote-agent');
    expect(agentNameOf('x'.repeat(80))).toHaveLength(64);
  });

  it('finds the card of a per-agent base URL, and keeps a card URL as is', () => {
    expect(agentCardUrlOf('http://host/a2a/echo')).toBe(
      'http://host/a2a/echo/.well-known/agent-card.json',
    );
    expect(agentCardUrlOf('http://host/a2a/echo/')).toBe(
      'http://host/a2a/echo/.well-known/agent-card.json',
    );
    expect(agentCardUrlOf('http://host')).toBe('http://host/.well-known/agent-card.json');
    expect(agentCardUrlOf('http://host/cards/echo.json')).toBe('http://host/cards/echo.json');
  });
});
