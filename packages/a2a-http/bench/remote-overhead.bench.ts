// Remote invoke latency overhead of the echo agent over loopback: the median of remote invokes
// (create a task, long-poll it) minus the median of local invokes of the same agent.
// Usage: node bench/remote-overhead.bench.ts [runs=1000] [maxSeconds=20]
import { createEchoAgent } from '@agentport/core/agents';
import { createA2AHttpServer, createRemoteAgent } from '../src/index.ts';

const runs = Number(process.argv[2] ?? 1000);
const maxSeconds = Number(process.argv[3] ?? 20);
const warmup = Math.min(200, runs);
const input = 'the quick brown fox jumps over the lazy dog';

function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function time(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const local = createEchoAgent();
const server = createA2AHttpServer({ agent: createEchoAgent() });
const stop = new AbortController();
const url = await new Promise<string>((resolve, reject) => {
  server
    .listen({
      port: 0,
      hostname: '127.0.0.1',
      signal: stop.signal,
      onListen: (a) => resolve(a.url),
    })
    .catch(reject);
});
const stopped = server.listen === undefined ? Promise.resolve() : Promise.resolve();
const remote = await createRemoteAgent(url);

for (let index = 0; index < warmup; index += 1) {
  await local.invoke(input);
  await remote.invoke(input);
}

const localTimes: number[] = [];
const remoteTimes: number[] = [];
const deadline = performance.now() + maxSeconds * 1000;
// Interleaved, so drift (GC, CPU frequency) hits both sides alike.
for (let index = 0; index < runs && performance.now() < deadline; index += 1) {
  localTimes.push(await time(() => local.invoke(input)));
  remoteTimes.push(await time(() => remote.invoke(input)));
}
stop.abort();
await stopped;

const format = (ms: number) => `${(ms * 1000).toFixed(0).padStart(6)} µs`;
const localMedian = quantile(localTimes, 0.5);
const remoteMedian = quantile(remoteTimes, 0.5);
console.log(`echo agent, ${localTimes.length} runs each, ${url} (Node ${process.version})`);
console.log(
  `local  invoke: median ${format(localMedian)}  p90 ${format(quantile(localTimes, 0.9))}`,
);
console.log(
  `remote invoke: median ${format(remoteMedian)}  p90 ${format(quantile(remoteTimes, 0.9))}`,
);
console.log(`overhead (median remote - median local): ${format(remoteMedian - localMedian)}`);
