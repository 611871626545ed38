import { Agent, request } from 'node:http';
import { median } from './table.ts';

/**
 * One POST over a keep-alive agent; resolves with the time to the first SSE frame, to the end of
 * the first frame holding `marker` (when one is given; else -1) and the body.
 */
export function post(
  url: string,
  body: string,
  agent: Agent,
  headers: Record<string, string> = {},
  marker?: string,
): Promise<{ firstMs: number; markerMs: number; totalMs: number; status: number; text: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (response) => {
        let text = '';
        let firstMs = -1;
        let markerMs = -1;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          if (firstMs < 0 && text.includes('\n\n')) firstMs = performance.now() - started;
          if (markerMs < 0 && marker !== undefined) {
            const at = text.indexOf(marker);
            if (at >= 0 && text.includes('\n\n', at)) markerMs = performance.now() - started;
          }
        });
        response.on('end', () =>
          resolve({
            firstMs,
            markerMs,
            totalMs: performance.now() - started,
            status: response.statusCode ?? 0,
            text,
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * Median time to the first SSE event of sequential streams, each target on its own kept-alive
 * connection, the targets taking turns stream by stream (so a slow spell falls on all of them).
 */
export async function firstEventMedians(
  targets: Record<string, string>,
  body: string,
  options: { samples: number; warmup: number },
): Promise<Record<string, number>> {
  const entries = Object.entries(targets).map(([name, url]) => ({
    name,
    url,
    agent: new Agent({ keepAlive: true, maxSockets: 1 }),
    samples: [] as number[],
  }));
  try {
    for (let index = 0; index < options.warmup + options.samples; index += 1) {
      for (const entry of entries) {
        const { firstMs } = await post(entry.url, body, entry.agent);
        if (firstMs < 0) throw new Error(`no SSE event from ${entry.url}`);
        if (index >= options.warmup) entry.samples.push(firstMs);
      }
    }
  } finally {
    for (const entry of entries) entry.agent.destroy();
  }
  return Object.fromEntries(entries.map((entry) => [entry.name, median(entry.samples)]));
}

/** A stream timed by {@link firstEventTimes}: its URL, body, and the text of the frame awaited. */
export interface TimedStream {
  url: string;
  body: string;
  marker: string;
}

/**
 * Median times of one stream target: to its first SSE frame, to its first `marker` frame, and to
 * its end.
 */
export interface FirstEventTimes {
  frameMs: number;
  markerMs: number;
  totalMs: number;
}

/**
 * As {@link firstEventMedians}, each target with a body of its own, timing its first SSE frame,
 * the end of the first frame holding its marker and the end of the stream.
 */
export async function firstEventTimes(
  targets: Record<string, TimedStream>,
  options: { samples: number; warmup: number },
): Promise<Record<string, FirstEventTimes>> {
  const entries = Object.entries(targets).map(([name, target]) => ({
    name,
    target,
    agent: new Agent({ keepAlive: true, maxSockets: 1 }),
    frames: [] as number[],
    markers: [] as number[],
    totals: [] as number[],
  }));
  try {
    for (let index = 0; index < options.warmup + options.samples; index += 1) {
      for (const { target, agent, frames, markers, totals } of entries) {
        const timed = await post(target.url, target.body, agent, {}, target.marker);
        if (timed.firstMs < 0 || timed.markerMs < 0) {
          throw new Error(`no '${target.marker}' SSE frame from ${target.url}`);
        }
        if (index < options.warmup) continue;
        frames.push(timed.firstMs);
        markers.push(timed.markerMs);
        totals.push(timed.totalMs);
      }
    }
  } finally {
    for (const entry of entries) entry.agent.destroy();
  }
  return Object.fromEntries(
    entries.map((entry) => [
      entry.name,
      {
        frameMs: median(entry.frames),
        markerMs: median(entry.markers),
        totalMs: median(entry.totals),
      },
    ]),
  );
}

/** Opens `count` streams, each until its first event; resolves with a function closing them all. */
export async function openIdleStreams(
  url: string,
  body: string,
  count: number,
): Promise<() => void> {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const open: ReturnType<typeof request>[] = [];
  const openOne = () =>
    new Promise<void>((resolve, reject) => {
      const outgoing = request(url, {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json' },
      });
      outgoing.on('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('\n\n')) resolve();
        });
        response.on('error', () => undefined);
      });
      outgoing.on('error', (error) => (outgoing.destroyed ? undefined : reject(error)));
      outgoing.end(body);
      open.push(outgoing);
    });
  // In batches, so the listen backlog never overflows (a dropped SYN costs a 1 s retry).
  for (let started = 0; started < count; started += 200) {
    await Promise.all(Array.from({ length: Math.min(200, count - started) }, openOne));
  }
  return () => {
    for (const outgoing of open) outgoing.destroy();
    agent.destroy();
  };
}

/** Interleaved timings of several async calls: median milliseconds of each. */
export async function interleavedMedians(
  subjects: Record<string, () => Promise<unknown>>,
  options: { runs: number; warmup: number; maxMs: number },
): Promise<Record<string, number>> {
  const samples: Record<string, number[]> = {};
  for (const name of Object.keys(subjects)) samples[name] = [];
  for (let index = 0; index < options.warmup; index += 1) {
    for (const run of Object.values(subjects)) await run();
  }
  const deadline = performance.now() + options.maxMs;
  const order = Object.entries(subjects);
  for (let index = 0; index < options.runs && performance.now() < deadline; index += 1) {
    // A new order every round: what one subject leaves behind is not always charged to the same next one.
    for (let last = order.length - 1; last > 0; last -= 1) {
      const pick = Math.floor(Math.random() * (last + 1));
      [order[last], order[pick]] = [
        order[pick] as (typeof order)[number],
        order[last] as (typeof order)[number],
      ];
    }
    for (const [name, run] of order) {
      const started = performance.now();
      await run();
      samples[name]?.push(performance.now() - started);
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([name, values]) => [name, median(values)]),
  );
}
