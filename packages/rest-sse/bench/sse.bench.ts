// Benchmarks the REST/SSE server against a hand-written node:http server on 127.0.0.1: time to
// first event, completed 10-event streams per second, invoke requests per second and heap per
// idle open stream. Each server runs alone in a child process; this process is the client.
// Run with `pnpm bench` (about 40 s). `--quick` shortens every phase.
import { type ChildProcess, fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { EVENTS_PER_STREAM, type ServerKind, startServer } from './servers.ts';

const quick = process.argv.includes('--quick');
const DURATION_MS = quick ? 800 : 3000;
const WARMUP_MS = quick ? 200 : 700;
const CONCURRENCY = 32;
const LATENCY_SAMPLES = quick ? 100 : 400;
const IDLE_STREAMS = quick ? 200 : 1000;

interface Child {
  port: number;
  /** Heap used after a full GC, in bytes. */
  heap(): Promise<number>;
  /** CPU time used so far (user + system), in microseconds. */
  cpu(): Promise<number>;
  stop(): void;
}

function serveChild(kind: ServerKind): Promise<Child> {
  const file = fileURLToPath(import.meta.url);
  const child: ChildProcess = fork(file, ['--serve', kind], { execArgv: ['--expose-gc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (message: { port: number }) => {
      resolve({
        port: message.port,
        heap: () => ask(child, 'heap'),
        cpu: () => ask(child, 'cpu'),
        stop: () => child.kill(),
      });
    });
  });
}

function ask(child: ChildProcess, question: 'heap' | 'cpu'): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (reply: Record<string, number>) =>
      resolve(reply[question] ?? Number.NaN),
    );
    child.send(question);
  });
}

interface Call {
  port: number;
  path: string;
  body: string;
  agent: Agent;
}

/** One POST; resolves with the time to the first complete SSE frame and the whole body. */
function call({ port, path, body, agent }: Call): Promise<{ firstMs: number; text: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        let firstMs = -1;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          if (firstMs < 0 && text.includes('\n\n')) firstMs = performance.now() - started;
        });
        response.on('end', () => resolve({ firstMs, text }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Requests per second over the window, and the server's CPU time per request (microseconds). */
async function throughput(child: Child, path: string, check: (text: string) => boolean) {
  const { port } = child;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const body = JSON.stringify({ input: 'hello' });
  let completed = 0;
  let failed = 0;
  let counting = false;
  const deadline = performance.now() + WARMUP_MS + DURATION_MS;
  let cpuAtStart = 0;
  setTimeout(() => {
    counting = true;
    void child.cpu().then((cpu) => {
      cpuAtStart = cpu;
    });
  }, WARMUP_MS);
  const startedAt = performance.now() + WARMUP_MS;
  async function worker() {
    while (performance.now() < deadline) {
      const { text } = await call({ port, path, body, agent });
      if (!counting) continue;
      if (check(text)) completed += 1;
      else failed += 1;
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - startedAt) / 1000;
  const cpu = (await child.cpu()) - cpuAtStart;
  agent.destroy();
  if (failed > 0) throw new Error(`${failed} responses on ${path} were wrong`);
  return { perSecond: completed / seconds, cpuMicroseconds: cpu / completed };
}

async function firstEventLatency(port: number, path: string, input: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const body = JSON.stringify({ input });
  const samples: number[] = [];
  for (let index = 0; index < LATENCY_SAMPLES + 50; index += 1) {
    const { firstMs } = await call({ port, path, body, agent });
    if (index >= 50) samples.push(firstMs);
  }
  agent.destroy();
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? Number.NaN;
}

/** Opens idle streams (first event read, then nothing for 60 s) and measures server heap per stream. */
async function heapPerIdleStream(child: Child, path: string): Promise<number> {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const body = JSON.stringify({ input: '2 every 60s' });
  // Warm up the code paths, then measure.
  await openIdle(child.port, path, body, agent, 20).then((close) => close());
  const before = await child.heap();
  const close = await openIdle(child.port, path, body, agent, IDLE_STREAMS);
  const after = await child.heap();
  close();
  agent.destroy();
  return (after - before) / IDLE_STREAMS;
}

function openIdle(port: number, path: string, body: string, agent: Agent, count: number) {
  const requests: ReturnType<typeof request>[] = [];
  const opened = Array.from(
    { length: count },
    () =>
      new Promise<void>((resolve, reject) => {
        const outgoing = request(
          {
            host: '127.0.0.1',
            port,
            path,
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json' },
          },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              text += chunk;
              if (text.includes('\n\n')) resolve();
            });
            response.on('error', () => undefined);
          },
        );
        outgoing.on('error', (error) => (outgoing.destroyed ? undefined : reject(error)));
        outgoing.end(body);
        requests.push(outgoing);
      }),
  );
  return Promise.all(opened).then(() => () => {
    for (const outgoing of requests) outgoing.destroy();
  });
}

const isDone = (text: string) =>
  text.includes('event: done') && text.split('event: ').length === EVENTS_PER_STREAM + 1;
const isResult = (text: string) => text === '{"result":"hello"}';

async function measure(kind: ServerKind) {
  const child = await serveChild(kind);
  try {
    const results: Record<string, number> = {};
    results.firstEventMs = await firstEventLatency(child.port, '/bench/stream', 'go');
    const streams = await throughput(child, '/bench/stream', isDone);
    results.streamsPerSecond = streams.perSecond;
    results.streamCpu = streams.cpuMicroseconds;
    if (kind === 'raw' || kind === 'agentport') {
      const invokes = await throughput(child, '/echo/invoke', isResult);
      results.invokesPerSecond = invokes.perSecond;
      results.invokeCpu = invokes.cpuMicroseconds;
      results.heapPerIdleStream = await heapPerIdleStream(child, '/idle/ticker/stream');
    }
    return results;
  } finally {
    child.stop();
  }
}

function format(value: number | undefined, digits: number): string {
  return value === undefined ? '-' : value.toFixed(digits);
}

async function main() {
  const started = performance.now();
  const kinds: ServerKind[] = ['raw', 'agentport', 'agentport-web', 'hono'];
  const results = new Map<ServerKind, Record<string, number>>();
  for (const kind of kinds) results.set(kind, await measure(kind));
  const raw = results.get('raw') ?? {};
  console.log(
    `SSE: ${EVENTS_PER_STREAM}-event streams, ${CONCURRENCY} concurrent; invoke: echo; 127.0.0.1\n`,
  );
  const ratio = (value: number | undefined, base: number | undefined) =>
    value === undefined ? '' : ` (${format(value / (base ?? Number.NaN), 2)}x)`;
  const rows = [
    ['server', 'first event', 'streams/s', 'CPU/stream', 'invokes/s', 'CPU/invoke', 'heap/idle'],
    ['', 'median ms', '(x raw)', 'us (x raw)', '(x raw)', 'us (x raw)', 'stream KiB'],
  ];
  for (const [kind, result] of results) {
    rows.push([
      kind,
      format(result.firstEventMs, 3),
      `${format(result.streamsPerSecond, 0)}${ratio(result.streamsPerSecond, raw.streamsPerSecond)}`,
      `${format(result.streamCpu, 0)}${ratio(result.streamCpu, raw.streamCpu)}`,
      `${format(result.invokesPerSecond, 0)}${ratio(result.invokesPerSecond, raw.invokesPerSecond)}`,
      `${format(result.invokeCpu, 0)}${ratio(result.invokeCpu, raw.invokeCpu)}`,
      format(
        result.heapPerIdleStream === undefined ? undefined : result.heapPerIdleStream / 1024,
        1,
      ),
    ]);
  }
  const widths = rows[0]?.map((_, column) =>
    Math.max(...rows.map((row) => row[column]?.length ?? 0)),
  );
  for (const row of rows) {
    console.log(row.map((cell, column) => cell.padEnd(widths?.[column] ?? 0)).join('  '));
  }
  console.log(
    '\nCPU/x is server CPU time per completed request: the fairest ratio on a busy machine.',
  );
  console.log(`\ndone in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[2] === '--serve') {
  const controller = new AbortController();
  const port = await startServer(process.argv[3] as ServerKind, controller.signal);
  process.on('message', (message) => {
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpu: user + system });
      return;
    }
    globalThis.gc?.();
    globalThis.gc?.();
    process.send?.({ heap: process.memoryUsage().heapUsed });
  });
  process.on('disconnect', () => controller.abort());
  process.send?.({ port });
} else {
  await main();
}
