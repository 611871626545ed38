import type { Task } from '@agentport/core';
import { listen } from '@agentport/http/node';
import { dropAndRejoin, errorCodesOf, readSSEEvents, sentSeqs } from '@agentport/http/testing';
import type { EventSourceMessage } from 'eventsource-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { createBuiltinAgents } from './builtin-agents.ts';
import { createGateway } from './gateway.ts';

const stops: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

/** A gateway of the built-in agents on a real socket, with its Node fast path. */
async function start(): Promise<string> {
  const gateway = createGateway({
    agents: createBuiltinAgents(),
    defaultAgent: 'ticker',
    publicUrl: 'http://127.0.0.1',
  });
  const controller = new AbortController();
  let resolve: (url: string) => void = () => undefined;
  const listening = new Promise<string>((settle) => {
    resolve = settle;
  });
  const stopped = listen(gateway.app, {
    signal: controller.signal,
    shutdownTimeoutMs: 200,
    handleNode: gateway.handleNode,
    onListen: (address) => resolve(address.url),
  });
  stops.push(async () => {
    controller.abort();
    await stopped;
  });
  return listening;
}

async function streamRun(url: string, agentName: string, input: string): Promise<Response> {
  const response = await fetch(`${url}/compat/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent_name: agentName, input, stream: true }),
  });
  expect(response.status).toBe(200);
  return response;
}

/** The task id a run stream's Content-Location names, checked to be `/compat/runs/{id}/stream`. */
function taskIdOf(response: Response): string {
  const location = response.headers.get('content-location') ?? '';
  const match = /^\/compat\/runs\/([0-9a-f-]{36})\/stream$/.exec(location);
  expect(match, location).not.toBeNull();
  return match?.[1] as string;
}

/** The log of a task, read over the hand-rolled A2A route of its agent. */
async function logOf(url: string, name: string, id: string) {
  const response = await fetch(`${url}/agents/${name}/tasks/${id}/events`, {
    headers: { 'last-event-id': '0' },
  });
  return (await readSSEEvents(response)).map((event) => ({
    seq: Number(event.id),
    event: JSON.parse(event.data) as { type: string },
  }));
}

const ids = (events: readonly EventSourceMessage[]) => events.map((event) => Number(event.id));

describe('a compat run stream of the gateway', () => {
  it('is a task of the shared store, numbered by its log, continued at N+1 at its Content-Location', async () => {
    const url = await start();
    const response = await streamRun(url, 'ticker', '6 every 30ms');
    const id = taskIdOf(response);
    const { before, status, after } = await dropAndRejoin(url, response, 2);
    expect(status).toBe(200);
    expect(ids(after)[0]).toBe((ids(before).at(-1) as number) + 1);
    expect(after.at(-1)?.event).toBe('done');
    expect(JSON.parse(after.at(-1)?.data ?? '')).toEqual({
      output: 'tick 1\ntick 2\ntick 3\ntick 4\ntick 5\ntick 6',
    });
    // No gap, no duplicate: the two parts are the log's events, read over the A2A route.
    expect([...ids(before), ...ids(after)]).toEqual(sentSeqs(await logOf(url, 'ticker', id)));
    const task = (await (await fetch(`${url}/agents/ticker/tasks/${id}`)).json()) as {
      task: Task;
    };
    expect(task.task).toMatchObject({ id, status: 'completed' });
  });

  it('answers a bad Last-Event-ID 400 and an unknown task 404 at the rejoin route', async () => {
    const url = await start();
    const response = await streamRun(url, 'echo', 'a b');
    const location = response.headers.get('content-location') as string;
    await readSSEEvents(response);
    const answers = await Promise.all([
      fetch(`${url}${location}`, { headers: { 'last-event-id': 'x' } }),
      fetch(`${url}${location}`, { headers: { 'last-event-id': '999' } }),
      fetch(`${url}/compat/runs/nobody/stream`),
    ]);
    expect(await errorCodesOf(answers)).toEqual([
      [400, 'invalid_input'],
      [400, 'events_ahead'],
      [404, 'task_not_found'],
    ]);
  });

  it('is documented in the OpenAPI document: the rejoin route, its errors, the Content-Location', async () => {
    const url = await start();
    const document = (await (await fetch(`${url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { summary: string; responses: object }>>;
    };
    const rejoin = document.paths['/compat/runs/{id}/stream']?.get;
    expect(rejoin?.summary).toMatch(/^Rejoin a run stream/);
    expect(Object.keys(rejoin?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '404', '410']),
    );
    expect(document.paths['/compat/runs']?.post?.summary).toContain('Content-Location');
  });
});
