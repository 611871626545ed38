import { PassThrough, Writable } from 'node:stream';
import { AgentPortError, CancellationError, InvalidInputError } from '@agentport/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseSSE } from '../testing/sse.ts';
import { stopIdleHeartbeats } from './heartbeat.ts';
import {
  createSSEWriter,
  DEFAULT_HEARTBEAT_MS,
  type SSEWriter,
  type SSEWriterOptions,
  sseErrorMessage,
} from './sse-writer.ts';

function openStream(options: SSEWriterOptions = {}) {
  let writer: SSEWriter | undefined;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        writer = createSSEWriter(controller, options);
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
  );
  if (writer === undefined) throw new Error('the stream did not start');
  return { writer, stream, text: () => new Response(stream).text() };
}

/** A Node writable that records what it gets and holds every write until `drain()`. */
function stalledWritable() {
  const chunks: string[] = [];
  const callbacks: (() => void)[] = [];
  const writable = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callbacks.push(callback);
    },
  });
  const drain = () => {
    while (callbacks.length > 0) callbacks.shift()?.();
  };
  return { writable, chunks, drain };
}

const nextTick = () => new Promise((resolve) => process.nextTick(resolve));

afterEach(() => {
  stopIdleHeartbeats();
  vi.useRealTimers();
});

describe('SSEWriter.drained', () => {
  it('resolves once the reader has taken what was written, or the stream has ended', async () => {
    const { writable, drain } = stalledWritable();
    const writer = createSSEWriter(writable, { heartbeatMs: 0 });
    writer.write({ event: 'task', data: 'x'.repeat(1000) });
    let drained = false;
    const waiting = writer.drained().then(() => {
      drained = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The stalled writable holds the frame: not drained yet.
    expect(drained).toBe(false);
    drain();
    await waiting;
    expect(drained).toBe(true);
    // Held again, then ended: resolves too.
    writer.write({ event: 'task', data: 'y'.repeat(1000) });
    const ended = writer.drained();
    writer.close();
    drain();
    await expect(ended).resolves.toBeUndefined();
  });

  it('waits no longer than 10 s for a reader that takes nothing', async () => {
    vi.useFakeTimers();
    const { writable } = stalledWritable();
    const writer = createSSEWriter(writable, { heartbeatMs: 0 });
    writer.write({ event: 'task', data: 'x'.repeat(1000) });
    let drained = false;
    void writer.drained().then(() => {
      drained = true;
    });
    await vi.advanceTimersByTimeAsync(9_900);
    expect(drained).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(drained).toBe(true);
    writer.close();
  });
});

describe('createSSEWriter over a web stream', () => {
  it('writes events a real parser reads back, in order', async () => {
    const { writer, text } = openStream();
    expect(writer.write({ event: 'a', data: '1', id: 1 })).toBe(true);
    expect(writer.write({ event: 'b', data: 'two\nlines', id: 2 })).toBe(true);
    writer.close();
    expect(parseSSE(await text()).events).toEqual([
      { event: 'a', data: '1', id: '1' },
      { event: 'b', data: 'two\nlines', id: '2' },
    ]);
  });

  it('makes each event readable as soon as it is written', async () => {
    const { writer, stream } = openStream();
    const reader = stream.getReader();
    writer.write({ data: 'first' });
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toBe('data: first\n\n');
    writer.close();
    expect((await reader.read()).done).toBe(true);
  });

  it('ends once: close is idempotent, later writes are refused and the signal aborts', async () => {
    const { writer, text } = openStream();
    expect(writer.closed).toBe(false);
    expect(writer.signal.aborted).toBe(false);
    writer.close();
    writer.close();
    expect(writer.closed).toBe(true);
    expect(writer.signal.aborted).toBe(true);
    expect(writer.signal.reason).toBeInstanceOf(CancellationError);
    expect(writer.write({ data: 'late' })).toBe(false);
    expect(writer.comment('late')).toBe(false);
    expect(await text()).toBe('');
  });

  it('ends the stream when its signal aborts', async () => {
    const controller = new AbortController();
    const { writer, text } = openStream({ signal: controller.signal });
    writer.write({ data: 'before' });
    controller.abort();
    expect(writer.closed).toBe(true);
    expect(writer.write({ data: 'after' })).toBe(false);
    expect(parseSSE(await text()).events.map((event) => event.data)).toEqual(['before']);
  });

  it('starts ended when its signal has already aborted', () => {
    const { writer } = openStream({ signal: AbortSignal.abort() });
    expect(writer.closed).toBe(true);
  });

  it('notices a reader that canceled the stream', async () => {
    const { writer, stream } = openStream();
    await stream.cancel();
    expect(writer.write({ data: 'nobody reads this' })).toBe(false);
    expect(writer.signal.aborted).toBe(true);
  });

  it('ends a stream whose reader falls too far behind with a slow_reader error event', async () => {
    const { writer, text } = openStream({ maxBufferedBytes: 2000 });
    const data = 'x'.repeat(1000);
    expect(writer.write({ data, id: 1 })).toBe(true);
    expect(writer.write({ data, id: 2 })).toBe(true);
    // Over 2000 bytes wait, but the last event may not have been readable yet: not counted.
    expect(writer.write({ data, id: 3 })).toBe(true);
    // Now over 2000 bytes wait besides the last event: the next write ends the stream instead.
    expect(writer.write({ data, id: 4 })).toBe(false);
    expect(writer.signal.aborted).toBe(true);
    const events = parseSSE(await text()).events;
    // The error event goes on with the stream's ids.
    expect(events.map((event) => event.id)).toEqual(['1', '2', '3', '4']);
    expect(events.at(-1)?.event).toBe('error');
    expect(JSON.parse(events.at(-1)?.data ?? '')).toMatchObject({ code: 'slow_reader' });
  });

  it('sends one event larger than the cap, and the events after it, to a reader that keeps up', async () => {
    const { writer, stream } = openStream({ maxBufferedBytes: 2000 });
    const big = 'b'.repeat(5000);
    expect(writer.write({ event: 'text-delta', data: big, id: 1 })).toBe(true);
    expect(writer.write({ event: 'done', data: 'end', id: 2 })).toBe(true);
    writer.close();
    const { events } = parseSSE(await new Response(stream).text());
    expect(events.map((event) => [event.event, event.id, event.data.length])).toEqual([
      ['text-delta', '1', 5000],
      ['done', '2', 3],
    ]);
  });

  it('lets a reader that keeps up stream far more than the cap', async () => {
    const { writer, stream } = openStream({ maxBufferedBytes: 2000 });
    const reader = stream.getReader();
    let received = 0;
    for (let index = 0; index < 50; index += 1) {
      expect(writer.write({ data: 'y'.repeat(1000) })).toBe(true);
      received += (await reader.read()).value?.byteLength ?? 0;
    }
    writer.close();
    expect(received).toBeGreaterThan(50_000);
  });
});

describe('heartbeats', () => {
  it('sends a heartbeat comment every interval while the stream is idle', async () => {
    vi.useFakeTimers();
    const { writer, text } = openStream({ heartbeatMs: 1000 });
    vi.advanceTimersByTime(999);
    writer.comment('marker');
    vi.advanceTimersByTime(1);
    // The marker was written in this interval, so it was not idle.
    vi.advanceTimersByTime(3000);
    writer.close();
    vi.useRealTimers();
    expect(parseSSE(await text()).comments).toEqual([
      'marker',
      'heartbeat',
      'heartbeat',
      'heartbeat',
    ]);
  });

  it('sends none while events keep flowing', async () => {
    vi.useFakeTimers();
    const { writer, text } = openStream({ heartbeatMs: 1000 });
    for (let index = 0; index < 10; index += 1) {
      vi.advanceTimersByTime(500);
      writer.write({ data: String(index) });
    }
    writer.close();
    vi.useRealTimers();
    const parsed = parseSSE(await text());
    expect(parsed.comments).toEqual([]);
    expect(parsed.events).toHaveLength(10);
  });

  it('beats within one interval of the last write, wherever in the timer period it fell', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const written: Array<{ at: number; text: string }> = [];
    const writable = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        written.push({ at: Date.now(), text: chunk.toString('utf8') });
        callback();
      },
    });
    const startedAt = Date.now();
    const writer = createSSEWriter(writable, { heartbeatMs: 1000 });
    // Just after the timer's first period, where a check once a period left 1990 ms of silence.
    vi.advanceTimersByTime(1010);
    writer.comment('write');
    // In steps, letting each tick's writes go out when they are made.
    for (let step = 0; step < 50; step += 1) {
      await nextTick();
      vi.advanceTimersByTime(50);
    }
    writer.close();
    vi.useRealTimers();
    const beats = written
      .filter((chunk) => chunk.text === ': heartbeat\n\n')
      .map((chunk) => chunk.at - startedAt);
    expect(beats).toHaveLength(2);
    const [first, second] = beats as [number, number];
    expect(first - 1010).toBeGreaterThanOrEqual(750);
    expect(first - 1010).toBeLessThanOrEqual(1000);
    expect(second - first).toBeLessThanOrEqual(1000);
  });

  it('defaults to one every 15 seconds', async () => {
    vi.useFakeTimers();
    expect(DEFAULT_HEARTBEAT_MS).toBe(15_000);
    const { writer, text } = openStream();
    vi.advanceTimersByTime(14_999);
    writer.comment('before');
    vi.advanceTimersByTime(15_001);
    writer.close();
    vi.useRealTimers();
    expect(parseSSE(await text()).comments).toEqual(['before', 'heartbeat']);
  });

  it('stops when the stream ends', async () => {
    vi.useFakeTimers();
    const { writer, text } = openStream({ heartbeatMs: 1000 });
    expect(vi.getTimerCount()).toBe(1);
    writer.close();
    // The group's timer stops at its next beat, which finds it empty.
    vi.advanceTimersByTime(1000);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10_000);
    vi.useRealTimers();
    expect(await text()).toBe('');
  });

  it('serves every open stream with one timer per interval', async () => {
    vi.useFakeTimers();
    const streams = [openStream({ heartbeatMs: 1000 }), openStream({ heartbeatMs: 1000 })];
    expect(vi.getTimerCount()).toBe(1);
    const other = openStream({ heartbeatMs: 500 });
    expect(vi.getTimerCount()).toBe(2);
    vi.advanceTimersByTime(2000);
    streams[0]?.writer.close();
    expect(vi.getTimerCount()).toBe(2);
    vi.advanceTimersByTime(1000);
    streams[1]?.writer.close();
    other.writer.close();
    // An empty group keeps its timer until its next beat, for a stream that comes before it.
    expect(vi.getTimerCount()).toBe(2);
    const later = openStream({ heartbeatMs: 500 });
    vi.advanceTimersByTime(1000);
    later.writer.close();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(500);
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
    // A heartbeat after each whole interval of silence, up to the moment each stream closed.
    expect(parseSSE(await later.text()).comments).toHaveLength(2);
    const [first, second] = await Promise.all(streams.map((stream) => stream.text()));
    expect(parseSSE(first ?? '').comments).toHaveLength(2);
    expect(parseSSE(second ?? '').comments).toHaveLength(3);
    expect(parseSSE(await other.text()).comments).toHaveLength(6);
  });

  it('lets streams that end one after another share one timer', () => {
    vi.useFakeTimers();
    const setTimer = vi.spyOn(globalThis, 'setInterval');
    for (let index = 0; index < 3; index += 1) openStream({ heartbeatMs: 700 }).writer.close();
    expect(setTimer).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(700);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('can be turned off', () => {
    vi.useFakeTimers();
    const { writer } = openStream({ heartbeatMs: 0 });
    expect(vi.getTimerCount()).toBe(0);
    writer.close();
  });

  it('really fires on a short real interval', async () => {
    const { writer, stream } = openStream({ heartbeatMs: 20 });
    const reader = stream.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toBe(': heartbeat\n\n');
    writer.close();
  });
});

describe('createSSEWriter over a Node writable', () => {
  it('joins the events of one tick into one write, flushed at the end of the tick', async () => {
    const { writable, chunks, drain } = stalledWritable();
    const writer = createSSEWriter(writable);
    writer.write({ event: 'a', data: '1', id: 1 });
    writer.write({ event: 'b', data: '2', id: 2 });
    expect(chunks).toEqual([]);
    await nextTick();
    expect(chunks).toHaveLength(1);
    expect(parseSSE(chunks).events.map((event) => event.event)).toEqual(['a', 'b']);
    writer.write({ data: 'last' });
    writer.close();
    drain();
    expect(parseSSE(chunks).events.map((event) => event.data)).toEqual(['1', '2', 'last']);
    expect(writable.writableEnded).toBe(true);
  });

  it('ends when the writable closes (the reader went away)', () => {
    const writable = new PassThrough();
    const writer = createSSEWriter(writable);
    writable.destroy();
    return vi.waitFor(() => {
      expect(writer.signal.aborted).toBe(true);
      expect(writer.write({ data: 'x' })).toBe(false);
    });
  });

  it('ends with a slow_reader error once the writable holds more than the cap', async () => {
    const { writable, chunks, drain } = stalledWritable();
    const writer = createSSEWriter(writable, { maxBufferedBytes: 1500 });
    const data = 'z'.repeat(1000);
    for (const id of [1, 2, 3]) {
      expect(writer.write({ data, id })).toBe(true);
      await nextTick();
    }
    expect(writable.writableLength).toBeGreaterThan(3000);
    expect(writer.write({ data, id: 4 })).toBe(false);
    expect(writer.signal.aborted).toBe(true);
    drain();
    await nextTick();
    drain();
    const events = parseSSE(chunks).events;
    expect(events.map((event) => event.id)).toEqual(['1', '2', '3', '4']);
    expect(JSON.parse(events.at(-1)?.data ?? '')).toMatchObject({ code: 'slow_reader' });
  });

  it('takes an event larger than the cap and the one after it in the same tick', async () => {
    const { writable, chunks, drain } = stalledWritable();
    const writer = createSSEWriter(writable, { maxBufferedBytes: 1500 });
    expect(writer.write({ event: 'text-delta', data: 'z'.repeat(4000), id: 1 })).toBe(true);
    expect(writer.write({ event: 'done', data: 'end', id: 2 })).toBe(true);
    writer.close();
    drain();
    await nextTick();
    drain();
    expect(parseSSE(chunks).events.map((event) => [event.event, event.id])).toEqual([
      ['text-delta', '1'],
      ['done', '2'],
    ]);
  });

  it('drops a reader past the cap that never reads, after a grace period', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearInterval', 'clearTimeout'] });
    const { writable } = stalledWritable();
    const writer = createSSEWriter(writable, { maxBufferedBytes: 100 });
    writer.write({ data: 'z'.repeat(200) });
    writer.write({ data: 'y'.repeat(200) });
    await nextTick();
    expect(writer.write({ data: 'more' })).toBe(false);
    expect(writable.destroyed).toBe(false);
    vi.advanceTimersByTime(10_000);
    expect(writable.destroyed).toBe(true);
  });
});

describe('a stream that ends far ahead of its reader', () => {
  it('drops a reader that takes nothing of the backlog in a grace period, not one that reads', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const stuck = stalledWritable();
    const slow = stalledWritable();
    for (const { writable } of [stuck, slow]) {
      const writer = createSSEWriter(writable, { maxBufferedBytes: 100, heartbeatMs: 0 });
      writer.write({ data: 'z'.repeat(500), id: 1 });
      writer.close();
    }
    await nextTick();
    vi.advanceTimersByTime(5_000);
    slow.drain();
    vi.advanceTimersByTime(5_000);
    expect(stuck.writable.destroyed).toBe(true);
    expect(slow.writable.destroyed).toBe(false);
  });
});

describe('createSSEWriter with batchWrites', () => {
  it('enqueues the frames written within one turn as one chunk at its end', async () => {
    const { writer, stream } = openStream({ batchWrites: true, heartbeatMs: 0 });
    const reader = stream.getReader();
    writer.write({ data: '1' });
    writer.write({ event: 'two', data: '2' });
    writer.comment('note');
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe(
      'data: 1\n\nevent: two\ndata: 2\n\n: note\n\n',
    );
    writer.write({ data: 'last' });
    writer.close();
    // Closing hands over what the turn had not enqueued yet.
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: last\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('counts frames not enqueued yet in the backlog', () => {
    const { writer } = openStream({ batchWrites: true, maxBufferedBytes: 1500, heartbeatMs: 0 });
    const data = 'q'.repeat(1000);
    for (let index = 0; index < 3; index += 1) expect(writer.write({ data })).toBe(true);
    // Past the cap besides the frame written last, none of it enqueued yet.
    expect(writer.write({ data })).toBe(false);
  });
});

describe('createSSEWriter with slowReaderGraceMs', () => {
  it('lets a reader fall past the cap, and cuts it off without an event if it is still past it when the grace is up', async () => {
    const { writer, stream } = openStream({
      maxBufferedBytes: 1500,
      slowReaderGraceMs: 20,
      heartbeatMs: 0,
    });
    const data = 'w'.repeat(1000);
    for (let index = 0; index < 5; index += 1) expect(writer.write({ data })).toBe(true);
    expect(writer.closed).toBe(false);
    await vi.waitFor(() => expect(writer.closed).toBe(true));
    const reader = stream.getReader();
    await expect(reader.read()).rejects.toMatchObject({ code: 'slow_reader' });
  });

  it('keeps the stream of a reader that took the burst within its grace', async () => {
    const { writer, stream } = openStream({
      maxBufferedBytes: 1500,
      slowReaderGraceMs: 30,
      heartbeatMs: 0,
    });
    const data = 'w'.repeat(1000);
    for (let index = 0; index < 5; index += 1) writer.write({ data, id: index });
    const reader = stream.getReader();
    for (let index = 0; index < 5; index += 1) await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(writer.closed).toBe(false);
    expect(writer.write({ data: 'after' })).toBe(true);
    writer.close();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: after\n\n');
  });

  it('cuts a Node reader off by destroying its connection', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { writable } = stalledWritable();
    const writer = createSSEWriter(writable, {
      maxBufferedBytes: 100,
      slowReaderGraceMs: 1_000,
      heartbeatMs: 0,
    });
    writer.write({ data: 'z'.repeat(200) });
    await nextTick();
    expect(writer.write({ data: 'y'.repeat(200) })).toBe(true);
    vi.advanceTimersByTime(999);
    expect(writable.destroyed).toBe(false);
    vi.advanceTimersByTime(1);
    expect(writable.destroyed).toBe(true);
    expect(writer.closed).toBe(true);
  });
});

describe('creating a writer on something that cannot stream', () => {
  const errored = () => {
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    new ReadableStream<Uint8Array>({
      start(streamController) {
        controller = streamController;
        streamController.error(new Error('broken'));
      },
    });
    return controller;
  };
  const ended = () => {
    const writable = new PassThrough();
    writable.end();
    return writable;
  };

  it.each([
    ['a plain object', () => ({}), /got Object/],
    ['null', () => null, /got null/],
    ['a string', () => 'text/event-stream', /got string/],
    ['a finished Response', () => new Response('done'), /got Response/],
    ['an errored stream controller', errored, /already errored/],
    ['an ended Node response', ended, /already ended/],
  ])('fails with a clear error for %s', (_, target, message) => {
    let thrown: unknown;
    try {
      createSSEWriter(target() as never);
    } catch (error) {
      thrown = error;
    }
    expect(AgentPortError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'streaming_unsupported', status: 500 });
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).toMatch(/^Cannot write Server-Sent Events here/);
  });
});

describe('sseErrorMessage', () => {
  it('maps an AgentPort error to an error event with its code and message', () => {
    const message = sseErrorMessage(new InvalidInputError('input: must not be empty'));
    expect(message.event).toBe('error');
    expect(JSON.parse(message.data)).toEqual({
      code: 'invalid_input',
      message: 'input: must not be empty',
    });
  });

  it('hides the details of any other error', () => {
    const message = sseErrorMessage(new Error('token=secret at /srv/app.ts:12'));
    expect(JSON.parse(message.data)).toEqual({ code: 'internal_error', message: 'Internal error' });
    expect(message.data).not.toContain('secret');
  });
});

describe('createSSEWriter shutdown', () => {
  it('ends the stream with a shutting_down error event when the shutdown signal aborts', async () => {
    const shutdown = new AbortController();
    const { writer, text } = openStream({ shutdownSignal: shutdown.signal });
    writer.write({ event: 'tick', data: '1', id: 1 });
    shutdown.abort();
    expect(writer.closed).toBe(true);
    expect(writer.signal.aborted).toBe(true);
    const { events } = parseSSE(await text());
    expect(events.map((event) => [event.event, event.id])).toEqual([
      ['tick', '1'],
      ['error', '2'],
    ]);
    expect(JSON.parse(events[1]?.data ?? '')).toEqual({
      code: 'shutting_down',
      message: 'The server is shutting down',
    });
  });

  it('serves every stream of one shutdown signal with one listener on it', async () => {
    const shutdown = new AbortController();
    const add = vi.spyOn(shutdown.signal, 'addEventListener');
    const streams = [1, 2, 3].map(() => openStream({ shutdownSignal: shutdown.signal }));
    expect(add).toHaveBeenCalledTimes(1);
    streams[1]?.writer.close();
    shutdown.abort();
    const texts = await Promise.all(streams.map((stream) => stream.text()));
    expect(texts.map((text) => parseSSE(text).events.map((event) => event.event))).toEqual([
      ['error'],
      [],
      ['error'],
    ]);
    expect(streams.every((stream) => stream.writer.closed)).toBe(true);
  });

  it('does not write the shutdown event on a stream that already ended', async () => {
    const shutdown = new AbortController();
    const { writer, text } = openStream({ shutdownSignal: shutdown.signal });
    writer.close();
    shutdown.abort();
    expect(parseSSE(await text()).events).toEqual([]);
  });
});
