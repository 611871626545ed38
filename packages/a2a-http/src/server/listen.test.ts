import { createServer } from 'node:net';
import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { ListenError } from '@agentport/http/node';
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { foldTaskEvents } from '../testing/fold-task-events.ts';
import { serve } from '../testing/serve.ts';
import { createA2AHttpServer } from './create-a2a-http-server.ts';

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

describe('listen', () => {
  it('serves over a real socket, stops when the signal aborts, and releases the port', async () => {
    const server = createA2AHttpServer({ agent: createEchoAgent() });
    const served = await serve(server);
    const card = await (await fetch(`${served.url}/.well-known/agent.json`)).json();
    expect(card).toMatchObject({ name: 'echo', endpoint: served.url });
    const created = await fetch(`${served.url}/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'over the wire' }),
    });
    const { task } = await created.json();
    const done = await (await fetch(`${served.url}/tasks/${task.id}?wait=5`)).json();
    expect(done.task.output).toBe('over the wire');

    await served.stop();
    expect(await portIsFree(served.port)).toBe(true);
    await expect(fetch(`${served.url}/tasks`)).rejects.toThrow();
  });

  it('lets in-flight long-polls finish with the canceled task on shutdown, and cancels running tasks', async () => {
    const server = createA2AHttpServer({ agent: createTickerAgent() });
    const served = await serve(server);
    const task = await server.runner.submit('5 every 10s');
    const pending = fetch(`${served.url}/tasks/${task.id}?wait=60`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    await served.stop();
    expect(performance.now() - started).toBeLessThan(2_000);
    const response = await pending;
    expect(response.status).toBe(200);
    expect((await response.json()).task.status).toBe('canceled');
    expect((await server.runner.get(task.id)).status).toBe('canceled');
  });

  it('streams every event of a large task to its terminal one, not cut as slow_reader', async () => {
    const server = createA2AHttpServer({ agent: createEchoAgent() });
    const served = await serve(server);
    try {
      // A 300 KB input: the echo grows its output in 100,000 deltas, faster than a reader takes them.
      const input = 'ab '.repeat(100_000);
      const created = await fetch(`${served.url}/tasks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input }),
      });
      const { task } = await created.json();
      const response = await fetch(`${served.url}/tasks/${task.id}/events`);
      const events: Array<{ event: string; data: string }> = [];
      const parser = createParser({
        onEvent: (event) => events.push({ event: event.event ?? '', data: event.data }),
      });
      const decoder = new TextDecoder();
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
      // Not cut as slow_reader: task snapshots (a new one whenever the reader fell behind the
      // store's 10,000 events a task), the deltas after each, then the terminal status update.
      const { output, status } = foldTaskEvents(events);
      expect(events[0]?.event).toBe('task');
      expect(output === input).toBe(true);
      expect(status).toBe('completed');
    } finally {
      await served.stop();
    }
  });

  it('answers HEAD on the events route with the stream headers, without a stream', async () => {
    const server = createA2AHttpServer({ agent: createTickerAgent() });
    const served = await serve(server);
    const task = await server.runner.submit('3 every 10s');
    const response = await fetch(`${served.url}/tasks/${task.id}/events`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const started = performance.now();
    expect(await response.text()).toBe('');
    expect(performance.now() - started).toBeLessThan(1_000);
    await served.stop();
  });

  it('rejects with a ListenError when the port is busy, without crashing', async () => {
    const first = await serve(createA2AHttpServer({ agent: createEchoAgent() }));
    const second = createA2AHttpServer({ agent: createEchoAgent() });
    const attempt = second.listen({ port: first.port, hostname: '127.0.0.1' });
    await expect(attempt).rejects.toBeInstanceOf(ListenError);
    await expect(attempt).rejects.toMatchObject({
      code: 'listen_failed',
      message: expect.stringContaining('already in use'),
    });
    await first.stop();
  });

  it('rejects with a ListenError for an address that is not on this machine', async () => {
    const server = createA2AHttpServer({ agent: createEchoAgent() });
    await expect(server.listen({ port: 0, hostname: '192.0.2.1' })).rejects.toBeInstanceOf(
      ListenError,
    );
  });
});
