import { afterEach, describe, expect, it, vi } from 'vitest';
import { serve, type TestServer } from '../testing/serve.ts';
import { stopIdleHeartbeats } from './heartbeat.ts';
import { firstStep, sseResponse } from './sse-response.ts';

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
  stopIdleHeartbeats();
});

const options = {
  encode: (value: number) => JSON.stringify({ value }),
  encodeError: (error: unknown) => JSON.stringify({ error: String(error) }),
};

async function listenFetch(fetch: () => Promise<Response>): Promise<TestServer> {
  return serve({ fetch });
}

async function serveEvents(events: () => AsyncGenerator<number>): Promise<Response> {
  server = await listenFetch(async () => {
    const iterator = events();
    return sseResponse(iterator, await firstStep(iterator), options);
  });
  return fetch(server.url);
}

describe('sseResponse', () => {
  it('answers a stream whose events are all ready in one body, with its length', async () => {
    const response = await serveEvents(async function* () {
      yield 1;
      yield 2;
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('content-length')).not.toBeNull();
    expect(await response.text()).toBe('data: {"value":1}\n\ndata: {"value":2}\n\n');
  });

  it("answers with the headers it is given in place of the default ones (a protocol's own)", async () => {
    const iterator = (async function* () {
      yield 1;
    })();
    const headers = { 'Content-Type': 'text/event-stream', 'X-Extra': 'yes' };
    const response = await sseResponse(iterator, await firstStep(iterator), {
      ...options,
      headers,
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-extra')).toBe('yes');
    expect(response.headers.get('x-accel-buffering')).toBeNull();
  });

  it('joins the events that arrive within one turn into one chunk once it streams', async () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const iterator = (async function* () {
      yield 1;
      await released;
      for (let value = 2; value <= 5; value += 1) yield value;
    })();
    const response = await sseResponse(iterator, await firstStep(iterator), options);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe('data: {"value":1}\n\n');
    release();
    const chunks: string[] = [];
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      chunks.push(decoder.decode(chunk.value));
    }
    expect(chunks).toEqual([
      'data: {"value":2}\n\ndata: {"value":3}\n\ndata: {"value":4}\n\ndata: {"value":5}\n\n',
    ]);
  });

  it('streams events that come later, each as soon as it is there', async () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const response = await serveEvents(async function* () {
      yield 1;
      await released;
      yield 2;
    });
    expect(response.headers.get('content-length')).toBeNull();
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('data: {"value":1}\n\n');
    release();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      rest += decoder.decode(chunk.value);
    }
    expect(rest).toBe('data: {"value":2}\n\n');
  });

  it('drains the iterator to its end once the client has gone, without encoding the rest', async () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let drained = false;
    async function* events() {
      try {
        yield 1;
        await released;
        for (let value = 2; value <= 100; value += 1) yield value;
      } finally {
        drained = true;
      }
    }
    const encoded: number[] = [];
    const iterator = events();
    const response = await sseResponse(iterator, await firstStep(iterator), {
      ...options,
      encode: (value: number) => {
        encoded.push(value);
        return JSON.stringify({ value });
      },
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    release();
    await vi.waitFor(() => expect(drained).toBe(true));
    expect(encoded).toEqual([1]);
  });

  it('with stopWhenGone, stops the iterator when the client goes away instead of draining it', async () => {
    let pulled = 0;
    let stopped = false;
    async function* events() {
      try {
        for (;;) {
          pulled += 1;
          yield pulled;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      } finally {
        stopped = true;
      }
    }
    const iterator = events();
    const response = await sseResponse(iterator, await firstStep(iterator), {
      ...options,
      stopWhenGone: true,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    await vi.waitFor(() => expect(stopped).toBe(true));
    const atStop = pulled;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pulled).toBe(atStop);
  });

  describe('a reader past the backlog cap', () => {
    const big = 'x'.repeat(600);
    async function* burst() {
      yield 0;
      await new Promise((resolve) => setTimeout(resolve, 5));
      for (let value = 1; value <= 20; value += 1) yield value;
    }
    const capped = {
      encode: (value: number) => JSON.stringify({ value, big }),
      encodeError: options.encodeError,
      maxBufferedBytes: 1000,
    };

    it('is cut once it is still behind when its grace is up, the stream ended or not', async () => {
      const iterator = burst();
      const response = await sseResponse(iterator, await firstStep(iterator), {
        ...capped,
        slowReaderGraceMs: 30,
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await expect(reader.read()).rejects.toThrow('The reader fell more than 1000 bytes behind');
    });

    it('is not cut when it takes the backlog within its grace, however far behind a burst put it', async () => {
      const iterator = burst();
      const response = await sseResponse(iterator, await firstStep(iterator), {
        ...capped,
        slowReaderGraceMs: 1_000,
      });
      const text = await response.text();
      expect(text.match(/^data: /gm)).toHaveLength(21);
    });
  });

  it('writes a heartbeat comment after an interval without events, and none while events flow', async () => {
    server = await listenFetch(async () => {
      const iterator = (async function* () {
        yield 1;
        await new Promise((resolve) => setTimeout(resolve, 130));
        yield 2;
      })();
      return sseResponse(iterator, await firstStep(iterator), { ...options, heartbeatMs: 50 });
    });
    const text = await (await fetch(server.url)).text();
    expect(text).toMatch(/^data: \{"value":1\}\n\n(: heartbeat\n\n)+data: \{"value":2\}\n\n$/);
    // Events that come sooner than the interval get no heartbeat between them.
    await server.close();
    server = await listenFetch(async () => {
      const iterator = (async function* () {
        for (let value = 1; value <= 6; value += 1) {
          yield value;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      return sseResponse(iterator, await firstStep(iterator), { ...options, heartbeatMs: 200 });
    });
    expect(await (await fetch(server.url)).text()).not.toContain('heartbeat');
  });

  it('beats an interval after the last event, not up to two intervals later', async () => {
    server = await listenFetch(async () => {
      const iterator = (async function* () {
        yield 1;
        // Just after where a fixed 200 ms tick would fall, then quiet for two intervals.
        await new Promise((resolve) => setTimeout(resolve, 220));
        yield 2;
        await new Promise((resolve) => setTimeout(resolve, 500));
        yield 3;
      })();
      return sseResponse(iterator, await firstStep(iterator), { ...options, heartbeatMs: 200 });
    });
    const reader = ((await fetch(server.url)).body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const arrivals: { at: number; text: string }[] = [];
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      arrivals.push({ at: performance.now(), text: decoder.decode(chunk.value) });
    }
    const second = arrivals.find((arrival) => arrival.text.includes('"value":2'));
    const beat = arrivals.find(
      (arrival) => arrival.text.includes('heartbeat') && arrival.at > (second?.at ?? 0),
    );
    expect(beat).toBeDefined();
    // 200 ms after the event, with room for timers; a fixed tick would beat ~380 ms after it.
    expect((beat?.at ?? 0) - (second?.at ?? 0)).toBeLessThan(300);
  });

  it('ends with an error event when the stream fails midway', async () => {
    const response = await serveEvents(async function* () {
      yield 1;
      throw new Error('broken');
    });
    expect(await response.text()).toBe(
      'data: {"value":1}\n\nevent: error\ndata: {"error":"Error: broken"}\n\n',
    );
  });
});
