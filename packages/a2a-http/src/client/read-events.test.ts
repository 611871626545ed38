import { ParseError } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { readEvents, type ServerSentEvent, StreamIdleError } from './read-events.ts';

const encoder = new TextEncoder();

/** A body that hands out `chunks` one per read, then fails with `failure` (or ends). */
function bodyOf(
  chunks: string[],
  failure?: Error,
): { body: ReadableStream<Uint8Array>; reads: () => number } {
  let reads = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const chunk = chunks[reads];
        reads += 1;
        if (chunk !== undefined) controller.enqueue(encoder.encode(chunk));
        else if (failure !== undefined) controller.error(failure);
        else controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return { body, reads: () => reads };
}

const options = { maxEventCharacters: 1000, readAheadCharacters: 1000 };

async function drain(
  events: AsyncIterable<ServerSentEvent>,
  seen: string[],
  pauseMs = 0,
): Promise<unknown> {
  try {
    for await (const { data } of events) {
      seen.push(data);
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('readEvents', () => {
  it('yields the events that arrived before the body failed, then throws its error', async () => {
    const reset = new Error('ECONNRESET');
    const { body } = bodyOf(
      ['event: task\ndata: 1\n\nevent: task\ndata: 2\n\nevent: ta', 'sk\ndata: 3\n\ndata: hal'],
      reset,
    );
    const seen: string[] = [];
    // A slow consumer: the failure is known long before it asks for the second event.
    expect(await drain(readEvents(body, options), seen, 10)).toBe(reset);
    expect(seen).toEqual(['1', '2', '3']);
  });

  it('keeps reading while the consumer is busy, and pauses once enough is queued', async () => {
    const chunks = Array.from(
      { length: 50 },
      (_, index) => `data: ${String(index).padStart(8, '0')}\n\n`,
    );
    const { body, reads } = bodyOf(chunks);
    const events = readEvents(body, { maxEventCharacters: 1000, readAheadCharacters: 40 });
    expect(await events.next()).toMatchObject({ value: { data: '00000000' } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Five events of 8 characters queued (40), on top of the one handed over: six reads.
    expect(reads()).toBe(6);
    const seen: string[] = [];
    expect(await drain(events, seen)).toBeUndefined();
    expect(seen).toHaveLength(49);
    expect(seen.at(-1)).toBe('00000049');
  });

  it('ends with a ParseError when one event is longer than maxEventCharacters', async () => {
    const { body } = bodyOf(['data: short\n\n', `data: ${'x'.repeat(600)}`, 'x'.repeat(600)]);
    const seen: string[] = [];
    const error = await drain(readEvents(body, options), seen);
    expect(error).toBeInstanceOf(ParseError);
    expect(error).toMatchObject({ type: 'max-buffer-size-exceeded' });
    expect(seen).toEqual(['short']);
  });

  it('decodes UTF-8 split across chunks and ends with the body, dropping an unfinished event', async () => {
    const bytes = encoder.encode('event: task\ndata: héllo\n\ndata: unfinished');
    const split = bytes.indexOf(0xc3) + 1; // inside the two bytes of é
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, split));
        controller.enqueue(bytes.subarray(split));
        controller.close();
      },
    });
    const seen: ServerSentEvent[] = [];
    for await (const event of readEvents(body, options)) seen.push(event);
    expect(seen).toEqual([{ event: 'task', data: 'héllo' }]);
  });

  describe('idleMs', () => {
    /** A body that sends `chunks`, one every `everyMs`, then nothing: it never ends. */
    function trickle(chunks: string[], everyMs: number): ReadableStream<Uint8Array> {
      let timer: ReturnType<typeof setInterval> | undefined;
      return new ReadableStream<Uint8Array>({
        start(controller) {
          let sent = 0;
          timer = setInterval(() => {
            const chunk = chunks[sent];
            sent += 1;
            if (chunk === undefined) clearInterval(timer);
            else controller.enqueue(encoder.encode(chunk));
          }, everyMs);
        },
        cancel() {
          clearInterval(timer);
        },
      });
    }

    it('ends with a StreamIdleError once the body has sent nothing for idleMs, after its events', async () => {
      const seen: string[] = [];
      const started = performance.now();
      const error = await drain(
        readEvents(trickle(['data: 1\n\n', 'data: 2\n\n'], 10), { ...options, idleMs: 80 }),
        seen,
      );
      expect(error).toBeInstanceOf(StreamIdleError);
      expect(error).toMatchObject({ idleMs: 80 });
      expect(seen).toEqual(['1', '2']);
      expect(performance.now() - started).toBeGreaterThanOrEqual(80);
    });

    it('counts comments (heartbeats) as the body being alive', async () => {
      const heartbeats = Array.from({ length: 12 }, () => ': ping\n\n');
      const body = trickle(['data: 1\n\n', ...heartbeats, 'data: 2\n\n'], 25);
      const seen: string[] = [];
      const events = readEvents(body, { ...options, idleMs: 80 });
      for await (const { data } of events) {
        seen.push(data);
        if (data === '2') break;
      }
      // 14 chunks 25 ms apart (350 ms), silent for 80 ms at most.
      expect(seen).toEqual(['1', '2']);
    });

    it('does not count the time reading is paused for a slow consumer', async () => {
      // Each chunk comes 10 ms after it is asked for; the consumer takes 150 ms per event and
      // reading pauses meanwhile (read-ahead of one event), so chunks arrive ~150 ms apart,
      // longer than idleMs, while no read ever waits more than 10 ms.
      let sent = 0;
      const body = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            await new Promise((resolve) => setTimeout(resolve, 10));
            if (sent === 3) controller.close();
            else controller.enqueue(encoder.encode(`data: ${sent}\n\n`));
            sent += 1;
          },
        },
        { highWaterMark: 0 },
      );
      const seen: string[] = [];
      const events = readEvents(body, {
        maxEventCharacters: 1000,
        readAheadCharacters: 1,
        idleMs: 100,
      });
      expect(await drain(events, seen, 150)).toBeUndefined();
      expect(seen).toEqual(['0', '1', '2']);
    });
  });

  it('cancels the body when the consumer stops early', async () => {
    let canceled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('data: 1\n\ndata: 2\n\n'));
      },
      cancel() {
        canceled = true;
      },
    });
    for await (const { data } of readEvents(body, options)) {
      expect(data).toBe('1');
      break;
    }
    expect(canceled).toBe(true);
  });
});
