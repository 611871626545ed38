import { type Agent, type AgentEvent, defineAgent, outputOf } from '@agentport/core';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createGateway } from './gateway.ts';
import { collectLines } from './testing/log-lines.ts';
import { readEvents } from './testing/sse.ts';

// An agent that throws is `agent_failure` on every surface, whichever way it throws.

const base = 'http://gateway.test';
const secret = 'secret connection string';
const json = { 'content-type': 'application/json' };

/** A hand-written agent with this stream; its invoke reads the stream, as `outputOf` does. */
function handWritten(name: string, stream: () => AsyncIterable<AgentEvent>): Agent {
  return {
    name,
    tools: [],
    handoffs: [],
    invoke: () => outputOf(stream(), name),
    stream,
  };
}

const agents: Agent[] = [
  handWritten('throws-on-call', () => {
    throw new Error(secret);
  }),
  handWritten('next-throws', () => ({
    [Symbol.asyncIterator]: () => ({
      next: () => {
        throw new Error(secret);
      },
    }),
  })),
  handWritten('next-rejects', () => ({
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error(secret)) }),
  })),
  defineAgent({
    name: 'run-throws',
    run: () => {
      throw new Error(secret);
    },
  }),
  defineAgent({
    name: 'generator-throws',
    // biome-ignore lint/correctness/useYield: fails before its first event
    async *run() {
      throw new Error(secret);
    },
  }),
];

type App = ReturnType<typeof createGateway>['app'];

function post(app: App, path: string, body: unknown, headers: Record<string, string> = {}) {
  return Promise.resolve(
    app.request(`${base}${path}`, {
      method: 'POST',
      headers: { ...json, ...headers },
      body: JSON.stringify(body),
    }),
  );
}

function sdkCall(app: App, agent: string, method: string) {
  const message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'x' }] };
  return post(
    app,
    `/a2a/${agent}/jsonrpc`,
    { jsonrpc: '2.0', id: 1, method, params: { message } },
    { 'A2A-Version': '1.0' },
  );
}

interface Part {
  data?: { code?: string };
}

/** The code in the data part of an SDK task status message. */
function statusCode(status: { message?: { parts?: Part[] } } | undefined): string | undefined {
  return status?.message?.parts?.find((part) => part.data !== undefined)?.data?.code;
}

/** The code of a stream's last event, an `error` one. */
async function lastErrorCode(response: Response): Promise<string | undefined> {
  const last = (await readEvents(response)).at(-1);
  expect(last?.event).toBe('error');
  return (JSON.parse(last?.data ?? '{}') as { code?: string }).code;
}

/** The error code every surface answers for one run of `agent`, by surface. */
async function codesOf(app: App, agent: string): Promise<Record<string, unknown>> {
  const task = await post(app, `/agents/${agent}/tasks?wait=5`, { input: 'x' });
  const invoke = await post(app, `/agents/${agent}/invoke`, { input: 'x' });
  const stream = await post(app, `/agents/${agent}/stream`, { input: 'x' });
  const sdk = await sdkCall(app, agent, 'SendMessage');
  const sdkStream = await sdkCall(app, agent, 'SendStreamingMessage');
  const compat = await post(app, '/compat/runs', { agent_name: agent, input: 'x' });
  const compatStream = await post(app, '/compat/runs', {
    agent_name: agent,
    input: 'x',
    stream: true,
  });
  const sdkEvents = await readEvents(sdkStream);
  const sdkLast = JSON.parse(sdkEvents.at(-1)?.data ?? '{}') as {
    result?: { statusUpdate?: { status?: { message?: { parts?: Part[] } } } };
  };
  return {
    task: ((await task.json()) as { task: { error?: { code: string } } }).task.error?.code,
    invoke: [invoke.status, ((await invoke.json()) as { error: { code: string } }).error.code],
    stream: await lastErrorCode(stream),
    sdk: statusCode(
      ((await sdk.json()) as { result: { task: { status: never } } }).result.task.status,
    ),
    sdkStream: statusCode(sdkLast.result?.statusUpdate?.status),
    compat: [compat.status, ((await compat.json()) as { error: { code: string } }).error.code],
    compatStream: await lastErrorCode(compatStream),
  };
}

const everywhere = {
  task: 'agent_failure',
  invoke: [500, 'agent_failure'],
  stream: 'agent_failure',
  sdk: 'agent_failure',
  sdkStream: 'agent_failure',
  compat: [500, 'agent_failure'],
  compatStream: 'agent_failure',
};

describe('an agent that throws', () => {
  it.each([
    ['a hand-written stream that throws when called', 'throws-on-call'],
    ["a hand-written stream whose iterator's next throws", 'next-throws'],
    ["a hand-written stream whose iterator's next rejects", 'next-rejects'],
    ['a defineAgent run that throws when called', 'run-throws'],
    ['a defineAgent run that throws on its first step', 'generator-throws'],
  ])('is agent_failure on every surface: %s', async (_, name) => {
    const { lines, destination } = collectLines();
    const { app } = createGateway({
      agents,
      defaultAgent: name,
      publicUrl: base,
      logger: pino({ base: undefined }, destination),
    });
    expect(await codesOf(app, name)).toEqual(everywhere);
    expect(lines.join('')).not.toContain('internal_error');
    // Each run is logged once, as agent_failure, with the original error: never sent.
    const failures = lines.map((line) => JSON.parse(line)).filter((entry) => entry.agent);
    expect(failures).toHaveLength(7);
    for (const entry of failures) {
      expect(entry).toMatchObject({ agent: name, code: 'agent_failure', err: { message: secret } });
    }
  });

  it('never sends what it threw', async () => {
    const { app } = createGateway({ agents, defaultAgent: 'run-throws', publicUrl: base });
    for (const { name } of agents) {
      const answers = [
        await post(app, `/agents/${name}/tasks?wait=5`, { input: 'x' }),
        await post(app, `/agents/${name}/stream`, { input: 'x' }),
        await sdkCall(app, name, 'SendMessage'),
        await post(app, '/compat/runs', { agent_name: name, input: 'x', stream: true }),
      ];
      for (const answer of answers) expect(await answer.text()).not.toContain(secret);
    }
  });
});
