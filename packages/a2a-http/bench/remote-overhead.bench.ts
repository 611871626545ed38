// Remote invoke latency overhead of the echo agent over loopback (127.0.0.1): the median remote
// invoke (one `POST /tasks?wait=30` that creates the task and long-polls it; no polling interval
// anywhere) minus the median local invoke of the same agent. For scale it also times the HTTP
// floor: one fetch POST to a Hono route that only echoes its JSON body, on the same Node server.
// Usage: node bench/remote-overhead.bench.ts [runs=1000] [maxSeconds=20]
import { createEchoAgent } from '@agentport/core/agents';
import { listen } from '@agentport/rest-sse';
import { Hono } from 'hono';
import { createA2AHttpServer, createRemoteAgent } from '../src/index.ts';

const runs = Number(process.argv[2] ?? 1000);
const maxSeconds = Number(process.argv[3] ?? 20);
const warmup = Math.min(200, runs);
const input = 'the quick brown fox jumps over the lazy dog';

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function p90(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length * 0.9)] ?? Number.NaN;
}

async function start(
  serveApp: (options: Parameters<typeof listen>[1]) => Promise<void>,
  signal: AbortSignal,
): Promise<{ url: string; stopped: Promise<void> }> {
  let stopped: Promise<void> = Promise.resolve();
  const url = await new Promise<string>((resolve, reject) => {
    stopped = serveApp({ port: 0, hostname: '127.0.0.1', signal, onListen: (a) => resolve(a.url) });
    stopped.catch(reject);
  });
  return { url, stopped };
}

const stop = new AbortController();
const server = createA2AHttpServer({ agent: createEchoAgent() });
const a2a = await start((options) => server.listen(options), stop.signal);
const floorApp = new Hono();
floorApp.post('/echo', async (context) => context.json(await context.req.json(), 201));
const floor = await start((options) => listen(floorApp, options), stop.signal);

const local = createEchoAgent();
const remote = await createRemoteAgent(a2a.url);
const body = JSON.stringify({ input });
const subjects: Record<string, () => Promise<unknown>> = {
  local: () => local.invoke(input),
  floor: async () => {
    const response = await fetch(`${floor.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return response.json();
  },
  remote: () => remote.invoke(input),
};
const samples: Record<string, number[]> = { local: [], floor: [], remote: [] };

for (let index = 0; index < warmup; index += 1) {
  for (const run of Object.values(subjects)) await run();
}
const deadline = performance.now() + maxSeconds * 1000;
// Interleaved, so drift (GC, CPU frequency, other load) hits every subject alike.
for (let index = 0; index < runs && performance.now() < deadline; index += 1) {
  for (const [name, run] of Object.entries(subjects)) {
    const started = performance.now();
    await run();
    samples[name]?.push(performance.now() - started);
  }
}
stop.abort();
await Promise.all([a2a.stopped, floor.stopped]);

const us = (ms: number) => `${(ms * 1000).toFixed(0).padStart(6)} µs`;
const line = (label: string, values: number[]) =>
  console.log(`${label.padEnd(34)} median ${us(median(values))}   p90 ${us(p90(values))}`);
const localMedian = median(samples.local ?? []);
const remoteMedian = median(samples.remote ?? []);
const floorMedian = median(samples.floor ?? []);
console.log(
  `echo agent, ${samples.remote?.length} runs each, 127.0.0.1, Node ${process.version}, input ${input.length} chars`,
);
line('local invoke', samples.local ?? []);
line('remote invoke (POST /tasks?wait)', samples.remote ?? []);
line('HTTP floor (fetch POST, Hono echo)', samples.floor ?? []);
console.log(`overhead: median remote - median local = ${us(remoteMedian - localMedian)}`);
console.log(
  `          of which above the HTTP floor = ${us(remoteMedian - localMedian - floorMedian)}`,
);
