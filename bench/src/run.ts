// `pnpm bench`: the gateway side by side with a raw node:http server (the ceiling) and the
// official @a2a-js/sdk on Express 5, loaded by wrk from another core; prints the table and writes
// BENCHMARKS.md. Flags: --quick (short runs, for trying it out), --no-write (leave BENCHMARKS.md),
// --profile (write `--cpu-prof` profiles of every server into bench/profiles).
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createRemoteAgent } from '@agentport/a2a-http';
import { createRemoteSdkAgent } from '@agentport/a2a-sdk';
import { createEchoAgent } from '@agentport/core/agents';
import { pin, type ServerChild, startChild } from './child.ts';
import { firstEventMedian, interleavedMedians, openIdleStreams } from './client.ts';
import { describeMachine, hasTaskset } from './environment.ts';
import { type LoadFigures, type LoadSettings, loadScenario } from './measure.ts';
import { type Results, renderReport, writeReport } from './report.ts';
import {
  A2A_HEADERS,
  countEvents,
  ECHO_INPUT,
  IDLE_INPUT,
  jsonRpcBody,
  STREAM_INPUT,
} from './scenarios.ts';
import type { ServerKind } from './serve.ts';
import { hasWrk } from './wrk.ts';

const quick = process.argv.includes('--quick');
const profile = process.argv.includes('--profile');
const write = !process.argv.includes('--no-write') && !quick;
const IDLE_STREAMS = quick ? 200 : 2000;

if (!hasWrk()) {
  process.stderr.write(
    'pnpm bench needs wrk (https://github.com/wg/wrk) on the PATH.\n' +
      '  Debian/Ubuntu: sudo apt-get install -y wrk\n  macOS: brew install wrk\n',
  );
  process.exit(1);
}

const started = performance.now();
const pinning = hasTaskset() && availableParallelism() >= 2;
const lastCore = availableParallelism() - 1;
const serverCpus = pinning ? '0' : undefined;
const loadCpus = pinning ? (lastCore === 1 ? '1' : `1-${lastCore}`) : undefined;
if (loadCpus !== undefined) pin(process.pid, loadCpus);
const settings: LoadSettings = {
  warmupSeconds: quick ? 1 : 2,
  seconds: quick ? 1 : 3,
  runs: quick ? 1 : 5,
  connections: 32,
  loadCpus,
};
const profileDirectory = profile
  ? fileURLToPath(new URL('../profiles/', import.meta.url))
  : undefined;
if (profileDirectory !== undefined) mkdirSync(profileDirectory, { recursive: true });

const results: Results = { load: {}, firstEventMs: {}, heapPerIdleStream: {}, remote: {} };
const json = { 'content-type': 'application/json' };
const ok = (status: number) => status >= 200 && status < 300;
const echoed = (status: number, text: string) => ok(status) && text.includes(ECHO_INPUT);
const tenEvents = (status: number, text: string) => ok(status) && countEvents(text) === 10;
const agentMessage = (status: number, text: string) =>
  echoed(status, text) && text.includes('ROLE_AGENT') && !text.includes('"task"');
const completedTask = (status: number, text: string) =>
  ok(status) && text.includes('TASK_STATE_COMPLETED') && text.includes(ECHO_INPUT);

function log(message: string): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[${seconds} s] ${message}\n`);
}

async function measure(
  key: string,
  server: ServerChild,
  path: string,
  body: string,
  check: (status: number, text: string) => boolean,
  headers: Record<string, string> = {},
): Promise<LoadFigures> {
  log(`${key} on ${server.kind}`);
  const figures = await loadScenario(
    server,
    { url: `${server.url}${path}`, body, headers: { ...json, ...headers } },
    check,
    settings,
  );
  results.load[key] = figures;
  return figures;
}

async function idleHeap(server: ServerChild, path: string, body: string): Promise<number> {
  log(`${IDLE_STREAMS} idle streams on ${server.kind}`);
  const url = `${server.url}${path}`;
  (await openIdleStreams(url, body, 50))();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const before = await server.heap();
  const close = await openIdleStreams(url, body, IDLE_STREAMS);
  const after = await server.heap();
  close();
  return (after - before) / IDLE_STREAMS;
}

async function withServer(kind: ServerKind, body: (server: ServerChild) => Promise<void>) {
  const server = await startChild(kind, { cpus: serverCpus, profileDirectory });
  try {
    await body(server);
  } finally {
    await server.stop();
  }
}

const streamBody = JSON.stringify({ input: STREAM_INPUT });
const echoBody = JSON.stringify({ input: ECHO_INPUT });
const latencySamples = { samples: quick ? 100 : 1000, warmup: 100 };

await withServer('raw', async (server) => {
  await measure('invoke/raw', server, '/invoke', echoBody, echoed);
  await measure('sse/raw', server, '/stream', streamBody, tenEvents);
  log('first event on raw');
  results.firstEventMs.raw = await firstEventMedian(
    `${server.url}/stream`,
    streamBody,
    latencySamples,
  );
  results.heapPerIdleStream.raw = await idleHeap(server, '/idle', echoBody);
});

await withServer('hono', async (server) => {
  await measure('invoke/hono', server, '/invoke', echoBody, echoed);
});

await withServer('sdk-express', async (server) => {
  await measure(
    'send-task/sdk-express',
    server,
    '/task/jsonrpc',
    jsonRpcBody('SendMessage'),
    completedTask,
    A2A_HEADERS,
  );
  await measure(
    'send-message/sdk-express',
    server,
    '/message/jsonrpc',
    jsonRpcBody('SendMessage'),
    agentMessage,
    A2A_HEADERS,
  );
  await measure(
    'stream/sdk-express',
    server,
    '/task/jsonrpc',
    jsonRpcBody('SendStreamingMessage'),
    completedTask,
    A2A_HEADERS,
  );
});

await withServer('gateway-message', async (server) => {
  await measure(
    'send-message/gateway',
    server,
    '/a2a/echo/jsonrpc',
    jsonRpcBody('SendMessage'),
    agentMessage,
    A2A_HEADERS,
  );
});

await withServer('gateway', async (server) => {
  await measure('invoke/gateway', server, '/agents/echo/invoke', echoBody, echoed);
  await measure(
    'send-task/gateway',
    server,
    '/a2a/echo/jsonrpc',
    jsonRpcBody('SendMessage'),
    completedTask,
    A2A_HEADERS,
  );
  await measure(
    'tasks-wait/gateway',
    server,
    '/agents/echo/tasks?wait=10',
    echoBody,
    (status, text) => echoed(status, text) && text.includes('"completed"'),
  );
  await measure('sse/gateway', server, '/agents/echo/stream', streamBody, tenEvents);
  log('first event on gateway');
  results.firstEventMs.gateway = await firstEventMedian(
    `${server.url}/agents/echo/stream`,
    streamBody,
    latencySamples,
  );
  await measure(
    'stream/gateway',
    server,
    '/a2a/echo/jsonrpc',
    jsonRpcBody('SendStreamingMessage'),
    completedTask,
    A2A_HEADERS,
  );
  log('remote-agent overhead');
  const input = 'the quick brown fox jumps over the lazy dog';
  const local = createEchoAgent();
  const httpRemote = await createRemoteAgent(`${server.url}/agents/echo`);
  const sdkRemote = await createRemoteSdkAgent(`${server.url}/a2a/echo`);
  const restBody = JSON.stringify({ input });
  const timing = { runs: quick ? 200 : 2000, warmup: 200, maxMs: quick ? 5_000 : 30_000 };
  results.remote = await interleavedMedians(
    {
      local: () => local.invoke(input),
      a2aHttp: () => httpRemote.invoke(input),
      a2aSdk: () => sdkRemote.invoke(input),
    },
    timing,
  );
  // fetch on its own: each call leaves clean-up work that would be charged to the next subject.
  const rest = await interleavedMedians(
    {
      rest: () =>
        fetch(`${server.url}/agents/echo/invoke`, {
          method: 'POST',
          headers: json,
          body: restBody,
        }).then((response) => response.json()),
    },
    timing,
  );
  results.remote = { ...results.remote, ...rest };
  results.heapPerIdleStream.gateway = await idleHeap(
    server,
    '/agents/ticker/stream',
    JSON.stringify({ input: IDLE_INPUT }),
  );
});

const machine = describeMachine();
const report = renderReport(results, {
  machine,
  settings,
  pinned: pinning ? `server on CPU ${serverCpus}, load on CPU ${loadCpus}` : 'not pinned',
  idleStreams: IDLE_STREAMS,
  seconds: (performance.now() - started) / 1000,
});
process.stdout.write(`\n${report.text}\n`);
if (write) {
  const file = writeReport(report.markdown);
  log(`wrote ${file}`);
}
if (profileDirectory !== undefined) log(`CPU profiles in ${profileDirectory}`);
