import { connect } from 'node:net';
import { defineAgent } from '@agentport/core';
import { parseSSE, readSSE, servedPerTest } from '@agentport/http/testing';
import { describe, expect, it } from 'vitest';
import { createRestServer } from './rest-server.ts';

// Backpressure over a real socket: a reader that falls behind is cut, one that keeps up is not.
const start = servedPerTest();

const json = { 'content-type': 'application/json' };

describe('backpressure over a real socket', () => {
  it('ends the stream of a reader that stops reading with a slow_reader error (its run canceled after the grace)', async () => {
    let agentAborted = false;
    let sent = 0;
    const flood = defineAgent({
      name: 'flood',
      async *run(_input, { signal }) {
        signal.addEventListener('abort', () => {
          agentAborted = true;
        });
        for (let index = 0; index < 4000; index += 1) {
          sent += 1;
          yield { type: 'text-delta', delta: 'f'.repeat(64 * 1024) };
          await new Promise((resolve) => setImmediate(resolve));
        }
      },
    });
    const url = new URL(
      await start(
        createRestServer({ maxBufferedBytes: 256 * 1024, rejoinGraceMs: 50 }).register(
          'flood',
          flood,
        ),
      ),
    );
    const socket = connect(Number(url.port), url.hostname);
    const body = '{"input":"go"}';
    socket.write(
      `POST /flood/stream HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    );
    // A really slow reader: read nothing until the server has given up on us.
    socket.pause();
    await expect.poll(() => agentAborted, { timeout: 10_000 }).toBe(true);
    expect(sent).toBeLessThan(4000);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.resume();
    await new Promise((resolve) => socket.once('end', resolve));
    const raw = Buffer.concat(chunks).toString('utf8');
    const events = parseSSE(raw.slice(raw.indexOf('\r\n\r\n') + 4)).events;
    expect(events.at(-1)?.event).toBe('error');
    expect(JSON.parse(events.at(-1)?.data ?? '{}')).toMatchObject({ code: 'slow_reader' });
    // What was buffered for us stayed bounded: the agent stopped long before its 4000 events.
    expect(events.length).toBeLessThan(sent + 1);
  });

  it.each([
    ['tick of one turn', () => new Promise((resolve) => process.nextTick(resolve))],
    ['microtask of one tick', () => Promise.resolve()],
  ])(
    'streams an agent yielding 2 MB, each event in a later %s, to a reader that keeps up',
    async (_, pause) => {
      const burst = defineAgent({
        name: 'burst',
        async *run() {
          for (let index = 0; index < 100; index += 1) {
            yield { type: 'text-delta', delta: 'b'.repeat(20_000) };
            await pause();
          }
        },
      });
      const url = await start(
        createRestServer({ maxBufferedBytes: 1024 * 1024 }).register('burst', burst),
      );
      const response = await fetch(`${url}/burst/stream`, {
        method: 'POST',
        headers: json,
        body: '{"input":"go"}',
      });
      const events = (await readSSE(response)).events.map((event) => event.event);
      expect(events.filter((event) => event === 'text-delta')).toHaveLength(100);
      expect(events.at(-1)).toBe('done');
    },
  );
});
