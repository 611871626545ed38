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

// A raw server whose events stream misbehaves; the first path segment picks how:
// `/burst` sends three complete events and half of a fourth in one chunk, then breaks the
// connection; `/open` sends the three events and stays open.
const server = http.createServer((request, response) => {
  const variant = (request.url ?? '').split('/')[1];
  response.writeHead(200, { 'content-type': 'text/event-stream' });
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
