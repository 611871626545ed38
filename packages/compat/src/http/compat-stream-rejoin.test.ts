import { createMemoryTaskStore, type TaskStore } from '@agentport/core';
import { createAssistantAgent, createTickerAgent } from '@agentport/core/agents';
import {
  createWaitingAgent,
  dropAndRejoin,
  errorCodesOf,
  REJOIN_REFUSALS,
  readSSE,
  readSSEEvents,
  rejoinRefusals,
  sentSeqs,
  servedPerTest,
} from '@agentport/http/testing';
import { Hono } from 'hono';
import { describe, expect, it, vi } from 'vitest';
import { createRunner } from '../runner.ts';
import { type CompatAppOptions, createCompatApp } from './compat-app.ts';

const start = servedPerTest();
const LOCATION = /^\/compat\/runs\/([0-9a-f-]{36})\/stream$/;

/** The compat app at /compat (as the gateway mounts it) over a real socket. */
function serveCompat(options: Omit<CompatAppOptions, 'runner'> & { store: TaskStore }) {
  const runner = createRunner({ agents: [createTickerAgent(), createAssistantAgent()] });
  return start(new Hono().route('/compat', createCompatApp({ runner, ...options })));
}

function postRun(url: string, agentName: string, input: string): Promise<Response> {
  return fetch(`${url}/compat/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent_name: agentName, input, stream: true }),
  });
}

/** The id of the task a stream's Content-Location names. */
function taskIdOf(response: Response): string {
  const location = response.headers.get('content-location') ?? '';
  expect(location).toMatch(LOCATION);
  return LOCATION.exec(location)?.[1] as string;
}

describe('POST /compat/runs with stream: true, as a task', () => {
  it("numbers every event by its task's log and names where it is rejoined", async () => {
    const store = createMemoryTaskStore();
    const url = await serveCompat({ store });
    const response = await postRun(url, 'assistant', 'repeat hi there');
    const id = taskIdOf(response);
    const streamed = (await readSSE(response)).events;
    expect(streamed.map((event) => event.event)).toEqual([
      'handoff',
      'text-delta',
      'text-delta',
      'done',
    ]);
    expect(streamed.map((event) => Number(event.id))).toEqual(sentSeqs(await store.events(id)));
    // The task is the agent that was asked, whatever it handed off to.
    expect(await store.get(id)).toMatchObject({
      agentName: 'assistant',
      status: 'completed',
      output: 'hi there',
    });
  });

  it('continues a dropped stream at N+1 when rejoined with Last-Event-ID: N, to its done', async () => {
    const store = createMemoryTaskStore();
    const url = await serveCompat({ store });
    const response = await postRun(url, 'ticker', '6 every 30ms');
    const id = taskIdOf(response);
    const { before, status, after } = await dropAndRejoin(url, response, 2);
    expect(status).toBe(200);
    expect(Number(after[0]?.id)).toBe(Number(before.at(-1)?.id) + 1);
    expect(after.at(-1)?.event).toBe('done');
    expect(JSON.parse(after.at(-1)?.data ?? '')).toEqual({
      output: 'tick 1\ntick 2\ntick 3\ntick 4\ntick 5\ntick 6',
    });
    // Both parts together are the whole run: no gap, nothing twice.
    const whole = [...before, ...after];
    expect(whole.map((event) => Number(event.id))).toEqual(sentSeqs(await store.events(id)));
    expect(
      whole.filter((event) => event.event === 'text-delta').map((event) => event.data),
    ).toEqual(['tick 1', '\ntick 2', '\ntick 3', '\ntick 4', '\ntick 5', '\ntick 6'].map(delta));
  });

  it('goes on for the grace, then is canceled and its agent aborted when nobody rejoined', async () => {
    const store = createMemoryTaskStore();
    const waiting = createWaitingAgent('waiting');
    const runner = createRunner({ agents: [waiting.agent] });
    const url = await start(
      new Hono().route('/compat', createCompatApp({ runner, store, rejoinGraceMs: 300 })),
    );
    let aborted = false;
    void waiting.aborted.then(() => {
      aborted = true;
    });
    const response = await postRun(url, 'waiting', 'x');
    const id = taskIdOf(response);
    await readSSEEvents(response, 1);
    // Within the grace the run goes on.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await store.get(id))?.status).toBe('working');
    expect(aborted).toBe(false);
    await vi.waitFor(async () => expect((await store.get(id))?.status).toBe('canceled'));
    await vi.waitFor(() => expect(aborted).toBe(true));
  });
});

describe('GET /compat/runs/{id}/stream', () => {
  it('answers 400, 404 and 410 as JSON before any stream, as rest-sse rejoins do', async () => {
    const url = await serveCompat({ store: createMemoryTaskStore({ maxEventsPerTask: 3 }) });
    const response = await postRun(url, 'ticker', '4 every 1ms');
    const location = response.headers.get('content-location') as string;
    await response.text();
    expect(await rejoinRefusals(url, location, '/compat/runs/nobody/stream')).toEqual(
      REJOIN_REFUSALS,
    );
  });

  it('answers 404 for a task of an agent the runner does not serve, 405 for a POST', async () => {
    const store = createMemoryTaskStore();
    const url = await serveCompat({ store });
    await store.create({ id: 'elsewhere', agentName: 'stranger', input: 'x', metadata: {} });
    const answer = await fetch(`${url}/compat/runs/elsewhere/stream`);
    expect(await errorCodesOf([answer])).toEqual([[404, 'task_not_found']]);
    const posted = await fetch(`${url}/compat/runs/elsewhere/stream`, { method: 'POST' });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
  });
});

/** The data of a text-delta event. */
function delta(text: string): string {
  return JSON.stringify({ delta: text });
}
