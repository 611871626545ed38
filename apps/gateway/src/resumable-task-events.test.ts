import type { Task, TaskLogEntry } from '@agentport/core';
import { readSSEEvents } from '@agentport/http/testing';
import type { EventSourceMessage } from 'eventsource-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { startBuiltinGateway } from './testing/in-process-gateway.ts';

const stops: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

/** A gateway of the built-in agents on a free port, stopped after the test. */
async function start(): Promise<string> {
  const { url, stop } = await startBuiltinGateway();
  stops.push(stop);
  return url;
}

async function createTask(tasks: string, input: string): Promise<Task> {
  const response = await fetch(tasks, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { task: Task }).task;
}

async function errorOf(response: Response): Promise<{ status: number; code: string }> {
  const { error } = (await response.json()) as { error: { code: string } };
  return { status: response.status, code: error.code };
}

/** What the stream sent as log entries (every event but the `task` snapshot). */
function entriesOf(events: readonly EventSourceMessage[]): TaskLogEntry[] {
  return events
    .filter((event) => event.event !== 'task')
    .map((event) => ({ seq: Number(event.id), event: JSON.parse(event.data) }));
}

describe.each([
  ['/agents/ticker', 'header'],
  ['', 'query'],
] as const)('GET %s/tasks/{id}/events rejoined (Last-Event-ID as a %s)', (prefix, form) => {
  const rejoin = (events: string, id: string) =>
    form === 'header'
      ? fetch(events, { headers: { 'last-event-id': id } })
      : fetch(`${events}?lastEventId=${id}`);

  it('continues at N+1 with no gap and no duplicate of the whole log', async () => {
    const url = await start();
    const task = await createTask(`${url}${prefix}/tasks`, '5 every 40ms');
    const events = `${url}${prefix}/tasks/${task.id}/events`;
    const before = await readSSEEvents(await fetch(events), 3);
    expect(before[0]?.event).toBe('task');
    const snapshot = (JSON.parse(before[0]?.data ?? '') as { task: Task }).task;
    expect(before[0]?.id).toBe(String(snapshot.seq));
    const lastId = Number(before.at(-1)?.id);
    const rejoined = await rejoin(events, String(lastId));
    expect(rejoined.status).toBe(200);
    const after = await readSSEEvents(rejoined);
    expect(after[0]?.id).toBe(String(lastId + 1));
    expect(after.at(-1)?.event).toBe('status-update');
    expect(JSON.parse(after.at(-1)?.data ?? '').status).toBe('completed');

    // The whole log, read from the start once the task is done.
    const whole = entriesOf(await readSSEEvents(await rejoin(events, '0')));
    expect(whole.map((entry) => entry.seq)).toEqual(whole.map((_, index) => index + 1));
    expect([...entriesOf(before), ...entriesOf(after)]).toEqual(
      whole.filter((entry) => entry.seq > snapshot.seq),
    );
    const deltas = whole.filter((entry) => entry.event.type === 'text-delta');
    expect(deltas.map((entry) => (entry.event as { delta: string }).delta).join('')).toBe(
      'tick 1\ntick 2\ntick 3\ntick 4\ntick 5',
    );
  });

  it('answers 400 for an id that is not a number or is beyond the last event', async () => {
    const url = await start();
    const task = await createTask(`${url}${prefix}/tasks?wait=5`, '1 every 1ms');
    const events = `${url}${prefix}/tasks/${task.id}/events`;
    expect(await errorOf(await rejoin(events, 'x1'))).toEqual({
      status: 400,
      code: 'invalid_input',
    });
    expect(await errorOf(await rejoin(events, String(task.seq + 1)))).toEqual({
      status: 400,
      code: 'events_ahead',
    });
  });
});

describe('GET /agents/{name}/tasks/{id}/events', () => {
  it('answers 410 events_expired for events the log no longer keeps (10,000 a task)', async () => {
    const url = await start();
    const input = 'w '.repeat(10_050);
    const task = await createTask(`${url}/agents/echo/tasks?wait=20`, input);
    expect(task.status).toBe('completed');
    const events = `${url}/agents/echo/tasks/${task.id}/events`;
    const response = await fetch(events, { headers: { 'last-event-id': '1' } });
    expect(await errorOf(response)).toEqual({ status: 410, code: 'events_expired' });
    // What is still kept can be rejoined.
    const kept = await fetch(events, { headers: { 'last-event-id': String(task.seq - 1) } });
    expect(kept.status).toBe(200);
    expect((await readSSEEvents(kept)).map((event) => event.id)).toEqual([String(task.seq)]);
  });

  it("answers 404 for another agent's task, and for an unknown one", async () => {
    const url = await start();
    const task = await createTask(`${url}/agents/echo/tasks`, 'mine');
    for (const path of [
      `/agents/ticker/tasks/${task.id}/events`,
      `/tasks/${task.id}/events`,
      '/agents/echo/tasks/unknown/events',
    ]) {
      const response = await fetch(`${url}${path}`, { headers: { 'last-event-id': '1' } });
      expect(await errorOf(response)).toEqual({ status: 404, code: 'task_not_found' });
    }
  });
});
