import { ParseError } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { readEvents, type ServerSentEvent } from './read-events.ts';

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
