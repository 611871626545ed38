// Remote invoke latency overhead of the echo agent over loopback (127.0.0.1), and the HTTP
// transports it could use, side by side.
//
// Part 1, interleaved (in a random order every round): a local invoke of the echo agent, a remote
// invoke of the same agent through the a2a-http server (one `POST /tasks?wait=30` that creates the
// task and long-polls it; no polling interval anywhere) with the client's default transport, and
// the HTTP floor: a raw node:http keep-alive POST to a raw node:http server that parses and echoes
// the JSON body. Overhead = median remote - median local.
//
// Part 2, interleaved the same way: each transport against the raw echo server and against
// `POST /tasks?wait=30`, as ratios to the global fetch: node:http with a keep-alive agent, the
// global fetch, the remote agent on the global fetch (`fetch` option), and, when the `undici`
// package can be imported (it is not a dependency), undici's fetch and request on a keep-alive
// Agent. Fetch is kept out of part 1: the work it defers (web streams, finalizers) lands on the
// next request timed, ~0.2-0.3 ms on this machine.
// Usage: [BENCH_UNDICI=/path/to/undici/index.js] node bench/remote-overhead.bench.ts [runs=1000]
//        [maxSeconds=20 per part]
import http from 'node:http';
import { createEchoAgent } from '@agentport/core/agents';
import { createA2AHttpServer, createRemoteAgent } from '../src/index.ts';

type Subject = () => Promise<unknown>;

const runs = Number(process.argv[2] ?? 1000);
const maxSeconds = Number(process.argv[3] ?? 20);
const warmup = Math.min(200, runs);
const input = 'the quick brown fox jumps over the lazy dog';
const body = JSON.stringify({ input });
const jsonHeaders = { accept: 'application/json', 'content-type': 'application/json' };

function sorted(samples: number[]): number[] {
  return [...samples].sort((a, b) => a - b);
}
const median = (samples: number[]) => sorted(samples)[Math.floor(samples.length / 2)] ?? Number.NaN;
const p90 = (samples: number[]) => sorted(samples)[Math.floor(samples.length * 0.9)] ?? Number.NaN;
const us = (ms: number) => `${(ms * 1000).toFixed(0).padStart(6)} µs`;

/** Shuffles in place (Fisher-Yates). */
function shuffle<T>(items: T[]): T[] {
  for (let index = items.length - 1; index > 0; index -= 1) {
    const other = Math.floor(Math.random() * (index + 1));
    [items[index], items[other]] = [items[other] as T, items[index] as T];
  }
  return items;
}

/**
 * Runs the subjects interleaved, in a new random order every round, so drift (GC, CPU frequency,
 * other load) and the work one request leaves behind for the next hit every subject alike.
 */
async function measure(subjects: Record<string, Subject>): Promise<Record<string, number[]>> {
  const entries = Object.entries(subjects);
  const samples: Record<string, number[]> = Object.fromEntries(entries.map(([name]) => [name, []]));
  for (let index = 0; index < warmup; index += 1) {
    for (const [, run] of entries) await run();
  }
  const deadline = performance.now() + maxSeconds * 1000;
  for (let round = 0; round < runs && performance.now() < deadline; round += 1) {
    for (const [name, run] of shuffle([...entries])) {
      const started = performance.now();
      await run();
      samples[name]?.push(performance.now() - started);
    }
  }
  return samples;
}

/** The raw floor server: parses the JSON body and answers it, nothing else. */
function startRawEcho(): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => {
      const answer = JSON.stringify(JSON.parse(text));
      response.writeHead(201, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(answer),
      });
      response.end(answer);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const keepAlive = new http.Agent({ keepAlive: true });
/** A raw node:http keep-alive POST of the JSON body, resolving with the answer's text. */
function nodeHttpPost(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers = { ...jsonHeaders, 'content-length': String(Buffer.byteLength(body)) };
    const request = http.request(url, { method: 'POST', headers, agent: keepAlive }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => resolve(text));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

async function fetchPost(url: string): Promise<string> {
  return (await fetch(url, { method: 'POST', headers: jsonHeaders, body })).text();
}

interface UndiciModule {
  Agent: new (options: Record<string, unknown>) => { close(): Promise<void> };
  fetch: typeof globalThis.fetch;
  request: (
    url: string,
    options: Record<string, unknown>,
  ) => Promise<{ body: { text(): Promise<string> } }>;
}
// Optional, not a dependency (BENCH_UNDICI may point at an installed copy's index.js); a variable
// keeps tsc from resolving it.
const undiciName = process.env.BENCH_UNDICI ?? 'undici';
const undici = (await import(undiciName).catch(() => undefined)) as UndiciModule | undefined;
const dispatcher = undici && new undici.Agent({ keepAliveTimeout: 60_000, pipelining: 1 });

const stop = new AbortController();
const server = createA2AHttpServer({ agent: createEchoAgent() });
const a2aUrl = await new Promise<string>((resolve, reject) => {
  const served = server.listen({ port: 0, signal: stop.signal, onListen: (a) => resolve(a.url) });
  served.catch(reject);
});
const rawEcho = await startRawEcho();
const rawUrl = `http://127.0.0.1:${(rawEcho.address() as { port: number }).port}/echo`;
const tasksUrl = `${a2aUrl}/tasks?wait=30`;
const local = createEchoAgent();
const remote = await createRemoteAgent({ baseUrl: a2aUrl });
const remoteOnFetch = await createRemoteAgent({ baseUrl: a2aUrl, fetch: globalThis.fetch });

const part1 = await measure({
  local: () => local.invoke(input),
  remote: () => remote.invoke(input),
  floor: () => nodeHttpPost(rawUrl),
});

const transports: Record<string, (url: string) => Promise<unknown>> = {
  'global fetch': fetchPost,
  'node:http keep-alive Agent': nodeHttpPost,
  ...(undici &&
    dispatcher && {
      'undici fetch, keep-alive Agent': async (url: string) =>
        (
          await undici.fetch(url, {
            method: 'POST',
            headers: jsonHeaders,
            body,
            dispatcher,
          } as RequestInit)
        ).text(),
      'undici.request, keep-alive Agent': async (url: string) =>
        (
          await undici.request(url, { method: 'POST', headers: jsonHeaders, body, dispatcher })
        ).body.text(),
    }),
};
const targets = { 'raw node:http echo': rawUrl, 'a2a POST /tasks?wait': tasksUrl };
const part2Subjects: Record<string, Subject> = {
  'remote invoke, fetch option': () => remoteOnFetch.invoke(input),
};
for (const [target, url] of Object.entries(targets)) {
  for (const [transport, post] of Object.entries(transports)) {
    part2Subjects[`${target} | ${transport}`] = () => post(url);
  }
}
const part2 = await measure(part2Subjects);

stop.abort();
rawEcho.close();
keepAlive.destroy();
await dispatcher?.close();

const line = (label: string, values: number[], extra = '') =>
  console.log(`${label.padEnd(52)} median ${us(median(values))}   p90 ${us(p90(values))}${extra}`);
const localMedian = median(part1.local ?? []);
const remoteMedian = median(part1.remote ?? []);
const floorMedian = median(part1.floor ?? []);
console.log(
  `echo agent, ${part1.remote?.length} rounds, 127.0.0.1, Node ${process.version}, input ${input.length} chars`,
);
line('local invoke', part1.local ?? []);
line('remote invoke (POST /tasks?wait, default transport)', part1.remote ?? []);
line('HTTP floor (node:http POST, raw node:http echo)', part1.floor ?? []);
console.log(`overhead: median remote - median local = ${us(remoteMedian - localMedian)}`);
console.log(
  `          of which above the HTTP floor = ${us(remoteMedian - localMedian - floorMedian)}`,
);
console.log(
  `\ntransports, ${part2['remote invoke, fetch option']?.length} rounds (ratio to global fetch)`,
);
line('remote invoke, fetch option', part2['remote invoke, fetch option'] ?? []);
for (const target of Object.keys(targets)) {
  const base = median(part2[`${target} | global fetch`] ?? []);
  for (const transport of Object.keys(transports)) {
    const values = part2[`${target} | ${transport}`] ?? [];
    line(`${target} | ${transport}`, values, `   ${(median(values) / base).toFixed(2)}x`);
  }
}
