// `pnpm bench`: the gateway side by side with a raw node:http server (the ceiling) and the
// official @a2a-js/sdk on Express 5, and an AI SDK agent served by the gateway side by side with
// the AI SDK's own route and Mastra's server, loaded by wrk from another core; prints the table
// and writes BENCHMARKS.md. Flags: --quick (short runs, for trying it out), --no-write (leave BENCHMARKS.md),
// --profile (write `--cpu-prof` profiles of every server into bench/profiles), --only <group,...>
// (only those scenario groups, see selection.ts; nothing written).
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRemoteAgent } from '@agentport/a2a-http';
import { createRemoteSdkAgent } from '@agentport/a2a-sdk';
import { createEchoAgent } from '@agentport/core/agents';
import { pin, type ServerChild, startChild } from './child.ts';
import {
  firstEventMedians,
  firstEventTimes,
  interleavedMedians,
  openIdleStreams,
} from './client.ts';
import { measureColdStart } from './cold-start.ts';
import { describeMachine, describeSteal, readCpuTicks, splitCpus } from './environment.ts';
import { type LoadSettings, type LoadSubject, loadInterleaved, succeeded } from './measure.ts';
import { dropBenchSchemas, roundTripsPerTask } from './postgres.ts';
import { type CrossReplicaFigures, measureCrossReplica } from './replicas.ts';
import { type Results, renderReport, roundLines, writeReport } from './report.ts';
import {
  A2A_HEADERS,
  adapterTargets,
  CONVERSATION_ID,
  CONVERSATION_MESSAGES,
  countEvents,
  ECHO_INPUT,
  IDLE_INPUT,
  jsonRpcBody,
  oneJsonRpcBody,
  STREAM_INPUT,
} from './scenarios.ts';
import { parseSelection, type ScenarioGroup, type Selection } from './selection.ts';
import type { ServerKind } from './serve.ts';
import { hasWrk } from './wrk.ts';

let selection: Selection;
try {
  selection = parseSelection(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(2);
}
const runs = (group: ScenarioGroup) => selection.groups.has(group);
const quick = process.argv.includes('--quick');
const profile = process.argv.includes('--profile');
// A run of some groups only leaves BENCHMARKS.md as it is: its figures would stand for a whole run.
const write = !process.argv.includes('--no-write') && !quick && selection.complete;
const IDLE_STREAMS = quick ? 200 : 2000;

if (!hasWrk()) {
  process.stderr.write(
    'pnpm bench needs wrk (https://github.com/wg/wrk) on the PATH.\n' +
      '  Debian/Ubuntu: sudo apt-get install -y wrk\n  macOS: brew install wrk\n',
  );
  process.exit(1);
}

const started = performance.now();
const ticksAtStart = readCpuTicks();
const { serverCpus, loadCpus } = splitCpus();
if (loadCpus !== undefined) pin(process.pid, loadCpus);
const settings: LoadSettings = {
  warmupSeconds: quick ? 1 : 2,
  seconds: quick ? 1 : 3,
  runs: quick ? 1 : 7,
  connections: 32,
  loadCpus,
};
const profileDirectory = profile
  ? fileURLToPath(new URL('../profiles/', import.meta.url))
  : undefined;
if (profileDirectory !== undefined) mkdirSync(profileDirectory, { recursive: true });

const results: Results = {
  load: {},
  firstEventMs: {},
  heapPerIdleStream: {},
  remote: {},
  adapterFirstEvent: {},
};
const json = { 'content-type': 'application/json' };
const echoed = (status: number, text: string) => succeeded(status) && text.includes(ECHO_INPUT);
const tenEvents = (status: number, text: string) => succeeded(status) && countEvents(text) === 10;
const agentMessage = (status: number, text: string) =>
  echoed(status, text) && text.includes('ROLE_AGENT') && !text.includes('"task"');
const completedTask = (status: number, text: string) =>
  succeeded(status) && text.includes('TASK_STATE_COMPLETED') && text.includes(ECHO_INPUT);

function log(message: string): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[${seconds} s] ${message}\n`);
}

type Check = (status: number, text: string) => boolean;

/** A subject of an interleaved group: `key` is `<scenario>/<server kind>`. */
function subject(
  key: string,
  server: ServerChild,
  path: string,
  body: string,
  check: Check,
  headers: Record<string, string> = {},
): LoadSubject {
  return {
    key,
    server,
    request: { url: `${server.url}${path}`, body, headers: { ...json, ...headers } },
    check,
  };
}

/** Loads the subjects side by side (see {@link loadInterleaved}) and keeps their figures. */
async function measureTogether(title: string, subjects: LoadSubject[]): Promise<void> {
  log(`${title}: ${subjects.map((each) => each.key).join(', ')}`);
  const figures = await loadInterleaved(subjects, settings);
  for (const line of roundLines(figures)) log(`  ${line}`);
  Object.assign(results.load, figures);
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

const streamBody = JSON.stringify({ input: STREAM_INPUT });
const conversationBody = JSON.stringify({ input: ECHO_INPUT, contextId: CONVERSATION_ID });

/**
 * Gives the bench's conversation its 50 messages (25 turns) before it is loaded; the gateway's
 * conversations keep 50 each, so every loaded invoke is handed all 50 (see serve.ts).
 */
async function seedConversation(base: string): Promise<void> {
  for (let turn = 0; turn < CONVERSATION_MESSAGES / 2; turn += 1) {
    const response = await fetch(`${base}/agents/echo/invoke`, {
      method: 'POST',
      headers: json,
      body: conversationBody,
    });
    if (!response.ok) throw new Error(`seeding the conversation: ${response.status}`);
    await response.arrayBuffer();
  }
}
const echoBody = JSON.stringify({ input: ECHO_INPUT });
const latencySamples = { samples: quick ? 100 : 1000, warmup: 100 };
const sendBody = jsonRpcBody('SendMessage');
const sendStreamingBody = jsonRpcBody('SendStreamingMessage');

/** The remote agents' invokes of the gateway's echo agent, and local ones, timed. */
async function measureRemote(gateway: ServerChild): Promise<void> {
  log('remote-agent overhead');
  const input = 'the quick brown fox jumps over the lazy dog';
  const local = createEchoAgent();
  const httpRemote = await createRemoteAgent({ baseUrl: `${gateway.url}/agents/echo` });
  const sdkRemote = await createRemoteSdkAgent({ url: `${gateway.url}/a2a/echo` });
  const restBody = JSON.stringify({ input });
  const timing = { runs: quick ? 200 : 2000, warmup: 200, maxMs: quick ? 5_000 : 30_000 };
  results.remote = await interleavedMedians(
    { local: () => local.invoke(input), a2aHttp: () => httpRemote.invoke(input) },
    timing,
  );
  // Clients built on fetch each on their own: every fetch call leaves clean-up work (web streams,
  // finalizers) that would be charged to whatever runs next (it added 0.3-0.5 ms to the a2a-http
  // remote agent's median when the SDK's remote agent took turns with it).
  const sdk = await interleavedMedians({ a2aSdk: () => sdkRemote.invoke(input) }, timing);
  const rest = await interleavedMedians(
    {
      rest: () =>
        fetch(`${gateway.url}/agents/echo/invoke`, {
          method: 'POST',
          headers: json,
          body: restBody,
        }).then((response) => response.json()),
    },
    timing,
  );
  results.remote = { ...results.remote, ...sdk, ...rest };
}

/**
 * The framework-adapter scenario (issue 34): one AI SDK agent (a tool call, then 50 text deltas,
 * from a mock model without delays) streamed by the gateway (`fromAiSdk`), by the AI SDK's own
 * route on Hono and by Mastra on its Hono server, taking turns; then each one's time to its first
 * SSE frame and to its tool-call frame, stream by stream in turn.
 */
async function measureAdapters(server: (kind: ServerKind) => ServerChild): Promise<void> {
  const targets = adapterTargets();
  const kinds = {
    gateway: 'gateway-ai-sdk',
    'ai-sdk-hono': 'ai-sdk-hono',
    'mastra-hono': 'mastra-hono',
  } as const;
  const entries = Object.entries(targets) as [keyof typeof targets, (typeof targets)['gateway']][];
  await measureTogether(
    '7. Framework adapters, one AI SDK agent',
    entries.map(([name, target]) =>
      subject(
        `adapters/${name}`,
        server(kinds[name]),
        target.path,
        target.body,
        (status, text) => succeeded(status) && target.complete(text),
      ),
    ),
  );
  log('first event and first tool call of the AI SDK agent, the three servers taking turns');
  results.adapterFirstEvent = await firstEventTimes(
    Object.fromEntries(
      entries.map(([name, target]) => [
        name,
        {
          url: `${server(kinds[name]).url}${target.path}`,
          body: target.body,
          marker: target.toolCallMarker,
        },
      ]),
    ),
    latencySamples,
  );
}

/** Database round trips per completed task of the gateway's two task routes (xact_commit deltas). */
async function measureRoundTrips(gateway: ServerChild): Promise<void> {
  const post = (path: string, body: string, headers: Record<string, string>) => async () => {
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { ...json, ...headers },
      body,
    });
    const text = await response.text();
    if (!completedTask(response.status, text) && !text.includes('"completed"')) {
      throw new Error(`round trips: ${response.status} ${text.slice(0, 200)}`);
    }
  };
  const count = quick ? 50 : 200;
  const tasks = await roundTripsPerTask(post('/agents/echo/tasks?wait=10', echoBody, {}), count);
  const send = await roundTripsPerTask(
    async () => post('/a2a/echo/jsonrpc', oneJsonRpcBody('SendMessage'), A2A_HEADERS)(),
    count,
  );
  log(
    `database round trips per completed task: POST /tasks?wait ${tasks.toFixed(2)}, SendMessage ${send.toFixed(2)}`,
  );
}

/**
 * Issue 35's cross-replica event latency and cancel: replica A and a replica B started for them on
 * the same schema, stopped after (B's store reads every task A changes, which the loads and round
 * trips counted before must not include).
 */
async function measureReplicas(a: ServerChild): Promise<void> {
  log('cross-replica: events from A read on B, cancels sent to B of tasks running on A');
  // A second child of the same kind: another process on the same schema.
  const b = await startChild('gateway-postgres', { cpus: serverCpus, profileDirectory });
  let figures: CrossReplicaFigures;
  try {
    figures = await measureCrossReplica(a, b, {
      events: quick ? 100 : 500,
      warmupEvents: 20,
      cancels: quick ? 10 : 50,
      warmupCancels: quick ? 2 : 5,
    });
  } finally {
    await b.stop();
  }
  const ms = (value: number) => value.toFixed(3);
  log(
    `  clock of A minus the reader's: ${ms(figures.clockOffsetMs)} ms (+/- ${ms(figures.clockUncertaintyMs)})`,
  );
  for (const [name, latency] of Object.entries(figures)) {
    if (typeof latency === 'number') continue;
    log(`  ${name}: median ${ms(latency.medianMs)}, p99 ${ms(latency.p99Ms)} (${latency.samples})`);
  }
  results.crossReplica = figures;
}

// Each run's PostgreSQL schemas (the gateway's, and the SDK's with `_sdk`), dropped at the end.
const PG_SCHEMA = `bench_${process.pid}`;
process.env.BENCH_PG_SCHEMA = PG_SCHEMA;
// Every server of the groups run is up for the whole bench, each in its own process pinned to the
// server CPU; only the one under load is busy, and the subjects of each comparison take turns
// (loadInterleaved).
const children = new Map(
  await Promise.all(
    selection.servers.map(
      async (kind) =>
        [kind, await startChild(kind, { cpus: serverCpus, profileDirectory })] as const,
    ),
  ),
);
const server = (kind: ServerKind): ServerChild => {
  const child = children.get(kind);
  if (child === undefined) throw new Error(`the ${kind} server was not started`);
  return child;
};
try {
  if (runs('invoke')) {
    const raw = server('raw');
    const gateway = server('gateway');
    const hono = server('hono');
    await seedConversation(gateway.url);
    const taskDone: Check = (status, text) => echoed(status, text) && text.includes('"completed"');
    // The raw ceiling between the two gateway routes compared with it: each of their runs is next
    // to one of its own in every round.
    await measureTogether('1 and 3. REST invoke and POST /tasks?wait', [
      subject('invoke/raw-together', raw, '/invoke-together', echoBody, echoed),
      subject('invoke/hono', hono, '/invoke', echoBody, echoed),
      subject('invoke/gateway', gateway, '/agents/echo/invoke', echoBody, echoed),
      subject('invoke-50/gateway', gateway, '/agents/echo/invoke', conversationBody, echoed),
      subject('invoke/raw', raw, '/invoke', echoBody, echoed),
      subject('tasks-wait/gateway', gateway, '/agents/echo/tasks?wait=10', echoBody, taskDone),
      subject('tasks/raw', raw, '/tasks', echoBody, taskDone),
    ]);
  }
  if (runs('send')) {
    const express = server('sdk-express');
    const gateway = server('gateway');
    const gatewayMessage = server('gateway-message');
    await measureTogether('2. SendMessage, Task', [
      subject(
        'send-task/sdk-express',
        express,
        '/task/jsonrpc',
        sendBody,
        completedTask,
        A2A_HEADERS,
      ),
      subject(
        'send-task/gateway',
        gateway,
        '/a2a/echo/jsonrpc',
        sendBody,
        completedTask,
        A2A_HEADERS,
      ),
    ]);
    await measureTogether('2. SendMessage, Message', [
      subject(
        'send-message/sdk-express',
        express,
        '/message/jsonrpc',
        sendBody,
        agentMessage,
        A2A_HEADERS,
      ),
      subject(
        'send-message/gateway',
        gatewayMessage,
        '/a2a/echo/jsonrpc',
        sendBody,
        agentMessage,
        A2A_HEADERS,
      ),
    ]);
  }
  if (runs('sse')) {
    const raw = server('raw');
    const gateway = server('gateway');
    await measureTogether('4. SSE streams', [
      subject('sse/raw', raw, '/stream', streamBody, tenEvents),
      subject('sse/gateway', gateway, '/agents/echo/stream', streamBody, tenEvents),
    ]);
    log('first event, raw and gateway taking turns');
    results.firstEventMs = await firstEventMedians(
      { raw: `${raw.url}/stream`, gateway: `${gateway.url}/agents/echo/stream` },
      streamBody,
      latencySamples,
    );
  }
  if (runs('stream')) {
    const express = server('sdk-express');
    const gateway = server('gateway');
    await measureTogether('5. SendStreamingMessage', [
      subject(
        'stream/sdk-express',
        express,
        '/task/jsonrpc',
        sendStreamingBody,
        completedTask,
        A2A_HEADERS,
      ),
      subject(
        'stream/gateway',
        gateway,
        '/a2a/echo/jsonrpc',
        sendStreamingBody,
        completedTask,
        A2A_HEADERS,
      ),
    ]);
  }
  if (runs('remote')) await measureRemote(server('gateway'));
  if (runs('idle')) {
    results.heapPerIdleStream.raw = await idleHeap(server('raw'), '/idle', echoBody);
    results.heapPerIdleStream.gateway = await idleHeap(
      server('gateway'),
      '/agents/ticker/stream',
      JSON.stringify({ input: IDLE_INPUT }),
    );
  }
  if (runs('adapters')) await measureAdapters(server);
  if (runs('postgres')) {
    const express = server('sdk-express-postgres');
    const gateway = server('gateway-postgres');
    const memory = server('gateway');
    await measureTogether('8. SendMessage, Task, PostgreSQL', [
      subject(
        'pg-send/sdk-express',
        express,
        '/task/jsonrpc',
        sendBody,
        completedTask,
        A2A_HEADERS,
      ),
      subject(
        'pg-send/gateway',
        gateway,
        '/a2a/echo/jsonrpc',
        sendBody,
        completedTask,
        A2A_HEADERS,
      ),
    ]);
    const taskDone: Check = (status, text) => echoed(status, text) && text.includes('"completed"');
    await measureTogether('8. POST /tasks?wait, PostgreSQL and in memory', [
      subject('pg-tasks/postgres', gateway, '/agents/echo/tasks?wait=10', echoBody, taskDone),
      subject('pg-tasks/memory', memory, '/agents/echo/tasks?wait=10', echoBody, taskDone),
    ]);
    await measureRoundTrips(gateway);
    await measureReplicas(gateway);
  }
} finally {
  await Promise.all([...children.values()].map((child) => child.stop()));
  if (runs('postgres')) await dropBenchSchemas(PG_SCHEMA);
}
if (runs('cold-start')) {
  log('cold start of the gateway artifact, taking turns with a bare node:http server');
  results.coldStart = await measureColdStart({ runs: quick ? 3 : 15, cpus: serverCpus });
}

const machine = describeMachine();
const report = renderReport(results, {
  machine,
  settings,
  pinned:
    loadCpus === undefined ? 'not pinned' : `server on CPU ${serverCpus}, load on CPU ${loadCpus}`,
  idleStreams: IDLE_STREAMS,
  seconds: (performance.now() - started) / 1000,
  steal: describeSteal(ticksAtStart, readCpuTicks()),
});
process.stdout.write(`\n${report.text}\n`);
if (write) {
  const file = writeReport(report.markdown);
  log(`wrote ${file}`);
}
if (profileDirectory !== undefined) log(`CPU profiles in ${profileDirectory}`);
