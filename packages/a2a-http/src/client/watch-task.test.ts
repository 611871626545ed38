import http from 'node:http';
import { CancellationError, type Task } from '@agentport/core';
import { describe, expect, it } from 'vitest';
import { RemoteTimeoutError } from '../errors/remote-timeout-error.ts';
import { RemoteUnreachableError } from '../errors/remote-unreachable-error.ts';
import { serveNodeForFile } from '../testing/serve.ts';
import { createA2AHttpClient } from './create-a2a-http-client.ts';

const working = {
  id: 't1',
  agentName: 'fake',
  status: 'working',
  input: 'x',
  metadata: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const eventOf = (output: string) =>
  `event: task\ndata: ${JSON.stringify({ task: { ...working, output } })}\n\n`;
const half = 'event: task\ndata: {"task":{"id":"t1","sta';

const numbered = (output: string, seq: number) =>
  `event: task\nid: ${seq}\ndata: ${JSON.stringify({ task: { ...working, output, seq } })}\n\n`;
const logEvent = (seq: number, event: { type: string } & Record<string, unknown>) =>
  `event: ${event.type}\nid: ${seq}\ndata: ${JSON.stringify(event)}\n\n`;
/** The URLs the `/resume` and `/flaky` variants were asked for. */
const asked: string[] = [];

/**
 * The log stream of `/resume` and `/flaky`: the task at seq 2 and its event 3, then a break;
 * rejoined after 3, `/resume` sends events 4 and 5 (the end), `/flaky` breaks at once.
 */
function numberedStream(request: http.IncomingMessage, response: http.ServerResponse): void {
  asked.push(request.url ?? '');
  const rejoined = new URL(request.url ?? '', 'http://x').searchParams.get('lastEventId');
  if (rejoined === null) {
    const first = numbered('', 2) + logEvent(3, { type: 'text-delta', delta: 'tick 1' });
    response.write(first, () => request.socket.destroy());
  } else if ((request.url ?? '').startsWith('/flaky')) {
    request.socket.destroy();
  } else {
    response.end(
      logEvent(4, { type: 'text-delta', delta: '\ntick 2' }) +
        logEvent(5, { type: 'status-update', status: 'completed', timestamp: 'now' }),
    );
  }
}

// A raw server whose events stream misbehaves; the first path segment picks how:
// `/burst` sends three complete events and half of a fourth in one chunk, then breaks the
// connection; `/open` sends the three events and stays open; `/resume` and `/flaky` number
// their events and break (see numberedStream).
const server = http.createServer((request, response) => {
  const variant = (request.url ?? '').split('/')[1];
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  if (variant === 'resume' || variant === 'flaky') {
    numberedStream(request, response);
    return;
  }
  const events = ['tick 1', 'tick 2', 'tick 3'].map(eventOf);
  if (variant === 'burst') {
    response.write(events.join('') + half, () => request.socket.destroy());
  } else {
    response.write(events.join(''));
  }
});
const served = serveNodeForFile(server);

/** Follows the events route like a slow consumer, which takes 30 ms per task. */
async function watchSlowly(
  tasks: AsyncIterable<Task>,
  seen: string[],
  onTask?: () => void,
): Promise<unknown> {
  try {
    for await (const task of tasks) {
      seen.push(task.output ?? '');
      onTask?.();
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    return undefined;
  } catch (error) {
    return error;
  }
}

describe.each([
  ['node:http', {}],
  ['fetch', { fetch: globalThis.fetch }],
] as const)('watchTask (%s)', (_, options) => {
  it('hands a slow consumer every complete event that arrived before the stream broke', async () => {
    const client = createA2AHttpClient({ baseUrl: `${served.url}/burst`, ...options });
    const seen: string[] = [];
    const error = await watchSlowly(client.watchTask('t1'), seen);
    expect(seen).toEqual(['tick 1', 'tick 2', 'tick 3']);
    expect(error).toBeInstanceOf(RemoteUnreachableError);
    expect(error).toMatchObject({ code: 'remote_unreachable', operation: 'watchTask' });
  });

  it('rejoins a broken stream after the last event it had (lastEventId), folding the events into the task', async () => {
    asked.length = 0;
    const client = createA2AHttpClient({ baseUrl: `${served.url}/resume`, ...options });
    const tasks: Task[] = [];
    for await (const task of client.watchTask('t1')) tasks.push(task);
    expect(tasks.map((task) => [task.seq, task.status, task.output])).toEqual([
      [2, 'working', ''],
      [3, 'working', 'tick 1'],
      [4, 'working', 'tick 1\ntick 2'],
      [5, 'completed', 'tick 1\ntick 2'],
    ]);
    expect(asked).toEqual(['/resume/tasks/t1/events', '/resume/tasks/t1/events?lastEventId=3']);
  });

  it('fails with remote_unreachable once two rejoins in a row brought no event', async () => {
    asked.length = 0;
    const client = createA2AHttpClient({ baseUrl: `${served.url}/flaky`, ...options });
    const seen: string[] = [];
    const error = await watchSlowly(client.watchTask('t1'), seen);
    expect(seen).toEqual(['', 'tick 1']);
    expect(error).toBeInstanceOf(RemoteUnreachableError);
    expect(asked).toEqual([
      '/flaky/tasks/t1/events',
      '/flaky/tasks/t1/events?lastEventId=3',
      '/flaky/tasks/t1/events?lastEventId=3',
    ]);
  });

  it('hands over no event read ahead once the caller aborted', async () => {
    const client = createA2AHttpClient({ baseUrl: `${served.url}/open`, ...options });
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await watchSlowly(
      client.watchTask('t1', { signal: controller.signal }),
      seen,
      () => controller.abort(),
    );
    expect(seen).toEqual(['tick 1']);
    expect(error).toBeInstanceOf(CancellationError);
    expect((error as Error).message).toBe('watchTask was canceled');
  });

  it('fails with remote_timeout once the open stream has sent nothing for idleTimeoutMs', async () => {
    const client = createA2AHttpClient({ baseUrl: `${served.url}/open`, ...options });
    const seen: string[] = [];
    const error = await watchSlowly(client.watchTask('t1', { idleTimeoutMs: 120 }), seen);
    expect(seen).toEqual(['tick 1', 'tick 2', 'tick 3']);
    expect(error).toBeInstanceOf(RemoteTimeoutError);
    expect(error).toMatchObject({
      code: 'remote_timeout',
      status: 504,
      operation: 'watchTask',
      timeoutMs: 120,
      message: `watchTask failed: ${served.url}/open/tasks/t1/events sent nothing for 120 ms, not even a heartbeat`,
    });
  });

  it.each([Number.POSITIVE_INFINITY, 2 ** 31])(
    'never gives up on a silent stream with idleTimeoutMs %s',
    async (idleTimeoutMs) => {
      const client = createA2AHttpClient({ baseUrl: `${served.url}/open`, ...options });
      const controller = new AbortController();
      const seen: string[] = [];
      setTimeout(() => controller.abort(), 200);
      const error = await watchSlowly(
        client.watchTask('t1', { idleTimeoutMs, signal: controller.signal }),
        seen,
      );
      expect(seen).toEqual(['tick 1', 'tick 2', 'tick 3']);
      // Still waiting when the caller gave up: no timer fired early.
      expect(error).toBeInstanceOf(CancellationError);
    },
  );

  it.each([Number.NaN, 0, -1, '5'])('refuses idleTimeoutMs %s', (idleTimeoutMs) => {
    const client = createA2AHttpClient({ baseUrl: `${served.url}/open`, ...options });
    expect(() => client.watchTask('t1', { idleTimeoutMs: idleTimeoutMs as number })).toThrow(
      expect.objectContaining({ code: 'invalid_input', field: 'idleTimeoutMs' }),
    );
  });
});
