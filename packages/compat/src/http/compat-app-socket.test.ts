import { defineAgent } from '@agentport/core';
import { listen } from '@agentport/http/node';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createRunner } from '../runner.ts';
import { createCompatApp } from './compat-app.ts';

interface Probe {
  started: Promise<void>;
  aborted: Promise<void>;
}

function waitingAgent(): { agent: ReturnType<typeof defineAgent>; probe: Probe } {
  let markStarted: () => void = () => undefined;
  let markAborted: () => void = () => undefined;
  const probe: Probe = {
    started: new Promise((resolve) => {
      markStarted = resolve;
    }),
    aborted: new Promise((resolve) => {
      markAborted = resolve;
    }),
  };
  const agent = defineAgent({
    name: 'waiting',
    async *run(_input, context) {
      yield { type: 'text-delta', delta: 'started' };
      markStarted();
      await new Promise<void>((resolve) => {
        context.signal.addEventListener('abort', () => {
          markAborted();
          resolve();
        });
      });
    },
  });
  return { agent, probe };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms).unref();
    }),
  ]);
}

const stops: AbortController[] = [];
const servers: Promise<void>[] = [];

afterEach(async () => {
  for (const stop of stops.splice(0)) stop.abort();
  await Promise.all(servers.splice(0));
});

async function serve(app: ReturnType<typeof createCompatApp>): Promise<string> {
  const stop = new AbortController();
  stops.push(stop);
  return new Promise((resolve, reject) => {
    const server = listen(app, {
      signal: stop.signal,
      shutdownTimeoutMs: 100,
      onListen: ({ url }) => resolve(url),
    });
    servers.push(server);
    server.catch(reject);
  });
}

describe('the compat app over a real socket', () => {
  it('aborts a streaming run when the caller goes away and nobody rejoins within the grace', async () => {
    const { agent, probe } = waitingAgent();
    const base = await serve(
      createCompatApp({ runner: createRunner({ agents: [agent] }), rejoinGraceMs: 50 }),
    );
    const caller = new AbortController();
    const response = await fetch(`${base}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_name: 'waiting', input: 'x', stream: true }),
      signal: caller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body
      ?.pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream())
      .getReader();
    const first = await reader?.read();
    expect(first?.value).toMatchObject({ event: 'text-delta', id: '4' });
    caller.abort();
    await within(probe.aborted, 3000, 'the agent abort');
  });

  it('aborts a JSON run when the caller goes away', async () => {
    const { agent, probe } = waitingAgent();
    const base = await serve(createCompatApp({ runner: createRunner({ agents: [agent] }) }));
    const caller = new AbortController();
    const request = fetch(`${base}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_name: 'waiting', input: 'x' }),
      signal: caller.signal,
    });
    await within(probe.started, 3000, 'the agent start');
    caller.abort();
    await expect(request).rejects.toThrow();
    await within(probe.aborted, 3000, 'the agent abort');
  });
});
