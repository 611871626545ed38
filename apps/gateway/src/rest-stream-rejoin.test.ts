import { type Agent, defineAgent, type Task, type TaskLogEntry } from '@agentport/core';
import { listen } from '@agentport/http/node';
import { readSSEEvents } from '@agentport/http/testing';
import type { EventSourceMessage } from 'eventsource-parser';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBuiltinAgents } from './builtin-agents.ts';
import { createGateway } from './gateway.ts';

const stops: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

/** The abort signals of the `waiting` agent's runs, newest last. */
const waitingSignals: AbortSignal[] = [];

/** Yields one delta, then waits until its run is aborted. */
const waiting: Agent = defineAgent({
  name: 'waiting',
  async *run(_input, { signal }) {
    waitingSignals.push(signal);
    yield { type: 'text-delta', delta: 'started' };
    await new Promise((resolve) => signal.addEventListener('abort', resolve));
  },
});

/** A gateway of the built-in agents and `waiting`, with its Node fast path or the app alone. */
async function start(fastPath: boolean, rejoinGraceMs?: number): Promise<string> {
  const gateway = createGateway({
    agents: [...createBuiltinAgents(), waiting],
    defaultAgent: 'ticker',
    publicUrl: 'http://127.0.0.1',
    ...(rejoinGraceMs === undefined ? {} : { rejoinGraceMs }),
  });
  const controller = new AbortController();
  let url = '';
  const stopped = listen(gateway.app, {
    signal: controller.signal,
    shutdownTimeoutMs: 200,
    ...(fastPath ? { handleNode: gateway.handleNode } : {}),
    onListen: (address) => {
      url = address.url;
    },
  });
  while (url === '') await new Promise((resolve) => setTimeout(resolve, 5));
  stops.push(async () => {
    controller.abort();
    await stopped;
  });
  return url;
}

async function stream(url: string, name: string, input: string): Promise<Response> {
  const response = await fetch(`${url}/agents/${name}/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
  });
  expect(response.status).toBe(200);
  return response;
}

/** The task id a stream's Content-Location names, checked to be `/agents/{name}/tasks/{id}/stream`. */
function taskIdOf(response: Response, name: string): string {
  const location = response.headers.get('content-location') ?? '';
  const match = new RegExp(`^/agents/${name}/tasks/([0-9a-f-]{36})/stream$`).exec(location);
  expect(match, location).not.toBeNull();
  return match?.[1] as string;
}

/** The whole log of a task, read from the hand-rolled A2A route. */
async function logOf(url: string, name: string, id: string): Promise<TaskLogEntry[]> {
  const response = await fetch(`${url}/agents/${name}/tasks/${id}/events`, {
    headers: { 'last-event-id': '0' },
  });
  return (await readSSEEvents(response)).map((event) => ({
    seq: Number(event.id),
    event: JSON.parse(event.data),
  }));
}

/** The ids a REST stream sends of a log: its progress events and its terminal update. */
function sentSeqs(log: readonly TaskLogEntry[]): number[] {
  const store = ['status-update', 'message', 'artifact-update'];
  return log
    .filter((entry) => !store.includes(entry.event.type) || entry === log.at(-1))
    .map((entry) => entry.seq);
}

const ids = (events: readonly EventSourceMessage[]) => events.map((event) => Number(event.id));

describe.each([
  ['the Node fast path', true],
  ['the Hono app', false],
])('POST /agents/{name}/stream as a task of the shared store, on %s', (_, fastPath) => {
  it("numbers its events by the task's log, found by the hand-rolled A2A routes", async () => {
    const url = await start(fastPath);
    const response = await stream(url, 'ticker', '3 every 5ms');
    const id = taskIdOf(response, 'ticker');
    const events = await readSSEEvents(response);
    expect(events.map((event) => event.event)).toEqual([
      'text-delta',
      'text-delta',
      'text-delta',
      'done',
    ]);
    expect(ids(events)).toEqual(sentSeqs(await logOf(url, 'ticker', id)));
    const task = (await (await fetch(`${url}/agents/ticker/tasks/${id}`)).json()) as {
      task: Task;
    };
    expect(task.task).toMatchObject({ id, status: 'completed', output: 'tick 1\ntick 2\ntick 3' });
  });

  it('continues a dropped stream at N+1 at its Content-Location, with no gap and no duplicate, to done', async () => {
    const url = await start(fastPath);
    const response = await stream(url, 'ticker', '6 every 30ms');
    const id = taskIdOf(response, 'ticker');
    const location = response.headers.get('content-location') as string;
    const before = await readSSEEvents(response, 2);
    const last = Number(before.at(-1)?.id);
    const rejoined = await fetch(`${url}${location}`, { headers: { 'last-event-id': `${last}` } });
    expect(rejoined.status).toBe(200);
    const after = await readSSEEvents(rejoined);
    expect(ids(after)[0]).toBe(last + 1);
    expect(after.at(-1)?.event).toBe('done');
    expect(JSON.parse(after.at(-1)?.data ?? '')).toEqual({
      output: 'tick 1\ntick 2\ntick 3\ntick 4\ntick 5\ntick 6',
    });
    expect([...ids(before), ...ids(after)]).toEqual(sentSeqs(await logOf(url, 'ticker', id)));
  });
});

describe('a REST stream of the gateway', () => {
  it('is canceled at once, its agent aborted, by POST /agents/{name}/tasks/{id}/cancel', async () => {
    const url = await start(true);
    const response = await stream(url, 'waiting', 'x');
    const id = taskIdOf(response, 'waiting');
    const reading = readSSEEvents(response);
    await vi.waitFor(() => expect(waitingSignals.length).toBeGreaterThan(0));
    const signal = waitingSignals.at(-1) as AbortSignal;
    const canceled = await fetch(`${url}/agents/waiting/tasks/${id}/cancel`, { method: 'POST' });
    expect(canceled.status).toBe(200);
    expect(signal.aborted).toBe(true);
    const events = await reading;
    expect(events.at(-1)?.event).toBe('error');
    expect(JSON.parse(events.at(-1)?.data ?? '')).toMatchObject({ code: 'canceled' });
    expect(ids(events)).toEqual(sentSeqs(await logOf(url, 'waiting', id)));
  });

  it('goes on for the configured grace once its reader left, then is canceled and its agent aborted', async () => {
    const url = await start(true, 800);
    const response = await stream(url, 'waiting', 'x');
    const id = taskIdOf(response, 'waiting');
    await readSSEEvents(response, 1);
    const signal = waitingSignals.at(-1) as AbortSignal;
    await new Promise((resolve) => setTimeout(resolve, 400));
    const task = async () =>
      ((await (await fetch(`${url}/agents/waiting/tasks/${id}`)).json()) as { task: Task }).task;
    expect((await task()).status).toBe('working');
    expect(signal.aborted).toBe(false);
    await vi.waitFor(async () => expect((await task()).status).toBe('canceled'), {
      timeout: 5_000,
    });
    expect(signal.aborted).toBe(true);
  });

  it('answers a bad Last-Event-ID and a task of another agent as the task events route does', async () => {
    const url = await start(true);
    const response = await stream(url, 'ticker', '2 every 1ms');
    const id = taskIdOf(response, 'ticker');
    await readSSEEvents(response);
    const rejoin = (path: string, lastEventId?: string) =>
      fetch(`${url}${path}`, {
        headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId },
      });
    const answers = await Promise.all([
      rejoin(`/agents/ticker/tasks/${id}/stream`, 'x'),
      rejoin(`/agents/ticker/tasks/${id}/stream`, '999'),
      rejoin(`/agents/echo/tasks/${id}/stream`),
      rejoin(`/agents/ticker/tasks/${id}/events`, 'x'),
      rejoin(`/agents/ticker/tasks/${id}/events`, '999'),
      rejoin(`/agents/echo/tasks/${id}/events`),
    ]);
    const errors = await Promise.all(
      answers.map(async (answer) => {
        const { error } = (await answer.json()) as { error: { code: string } };
        return [answer.status, error.code];
      }),
    );
    const expected = [
      [400, 'invalid_input'],
      [400, 'events_ahead'],
      [404, 'task_not_found'],
    ];
    expect(errors).toEqual([...expected, ...expected]);
  });
});
