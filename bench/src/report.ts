import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FirstEventTimes } from './client.ts';
import type { ColdStartFigures } from './cold-start.ts';
import type { Machine } from './environment.ts';
import type { LoadFigures, LoadSettings } from './measure.ts';
import type { CrossReplicaFigures } from './replicas.ts';
import { adapterRows, adapterTargetRows, type TargetRow } from './report-adapters.ts';
import { replicaRows, replicaTargetRows } from './report-replicas.ts';
import { formatNumber, markdownTable, median, textTable } from './table.ts';

/** Everything one run measured. */
export interface Results {
  /** Keyed `<scenario>/<server>`. */
  load: Record<string, LoadFigures>;
  firstEventMs: Record<string, number>;
  heapPerIdleStream: Record<string, number>;
  /** Median milliseconds of `local`, `rest`, `a2aHttp` and `a2aSdk` invokes. */
  remote: Record<string, number>;
  /** The gateway artifact's starts to the first `/healthz` 200, and its size. */
  coldStart?: ColdStartFigures;
  /**
   * The framework-adapter scenario's times to the first SSE frame and to the tool-call frame, by
   * server (`gateway`, `ai-sdk-hono`, `mastra-hono`).
   */
  adapterFirstEvent?: Record<string, FirstEventTimes>;
  /** Issue 35's cross-replica event latency and cancel (two gateway replicas on PostgreSQL). */
  crossReplica?: CrossReplicaFigures;
}

/** How the run was made, for the report's header. */
export interface RunInfo {
  machine: Machine;
  settings: LoadSettings;
  pinned: string;
  idleStreams: number;
  seconds: number;
  /** Time the hypervisor took from each CPU over the run (`describeSteal`); empty if unknown. */
  steal: string;
}

/**
 * One line per subject: its requests per second round by round, for the run's log (a spell of
 * the host shows there as one round apart from the others; the report keeps only medians).
 */
export function roundLines(load: Readonly<Record<string, LoadFigures>>): string[] {
  return Object.entries(load).map(
    ([key, figures]) =>
      `${key}: ${(figures.roundsPerSecond ?? []).map((rate) => formatNumber(rate)).join(' ')} requests/s by round`,
  );
}

type Rows = string[][];

const LOAD_ROWS: [scenario: string, key: string, label: string, anchor: string][] = [
  ['1. REST invoke', 'invoke/raw', 'raw node:http (ceiling)', 'invoke/raw'],
  ['', 'invoke/raw-together', 'raw node:http, answers written together (for scale)', 'invoke/raw'],
  ['', 'invoke/hono', 'bare Hono app', 'invoke/raw'],
  ['', 'invoke/gateway', 'gateway POST /agents/echo/invoke', 'invoke/raw'],
  [
    '',
    'invoke-50/gateway',
    'gateway POST /agents/echo/invoke in a 50-message conversation',
    'invoke/gateway',
  ],
  ['2. A2A SendMessage, Task', 'send-task/sdk-express', '@a2a-js/sdk on Express 5', ''],
  ['', 'send-task/gateway', 'gateway /a2a/echo/jsonrpc', 'send-task/sdk-express'],
  ['2. A2A SendMessage, Message', 'send-message/sdk-express', '@a2a-js/sdk on Express 5', ''],
  [
    '',
    'send-message/gateway',
    'gateway /a2a/echo/jsonrpc, a2aReplyWith message',
    'send-message/sdk-express',
  ],
  ['3. POST /tasks?wait', 'invoke/raw', 'raw node:http (ceiling)', ''],
  ['', 'tasks/raw', 'raw node:http answering a task, nothing stored', 'invoke/raw'],
  ['', 'tasks-wait/gateway', 'gateway /agents/echo/tasks?wait=10', 'invoke/raw'],
  ['4. SSE 10-event streams', 'sse/raw', 'raw node:http SSE', ''],
  ['', 'sse/gateway', 'gateway /agents/echo/stream', 'sse/raw'],
  ['5. SendStreamingMessage', 'stream/sdk-express', '@a2a-js/sdk on Express 5', ''],
  ['', 'stream/gateway', 'gateway /a2a/echo/jsonrpc', 'stream/sdk-express'],
  [
    '7. AI SDK agent: tool call + 50 deltas',
    'adapters/ai-sdk-hono',
    "AI SDK's own route on Hono (toUIMessageStreamResponse)",
    '',
  ],
  ['', 'adapters/gateway', 'gateway /agents/weather/stream (fromAiSdk)', 'adapters/ai-sdk-hono'],
  [
    '',
    'adapters/mastra-hono',
    'Mastra Agent on @mastra/hono /api/agents/weather/stream',
    'adapters/ai-sdk-hono',
  ],
  [
    '8. SendMessage, Task, PostgreSQL',
    'pg-send/sdk-express',
    '@a2a-js/sdk on Express 5, DatabaseTaskStore',
    '',
  ],
  ['', 'pg-send/gateway', 'gateway /a2a/echo/jsonrpc, PostgreSQL store', 'pg-send/sdk-express'],
  ['8. POST /tasks?wait, PostgreSQL', 'pg-tasks/memory', 'gateway, in-memory store', ''],
  ['', 'pg-tasks/postgres', 'gateway, PostgreSQL store', 'pg-tasks/memory'],
];

function loadRows(results: Results): Rows {
  const rows: Rows = [['scenario', 'server', 'req/s', 'ratio', 'p50 ms', 'p99 ms', 'RSS MiB']];
  for (const [scenario, key, label, anchor] of LOAD_ROWS) {
    const figures = results.load[key];
    // A run of some scenario groups only (`--only`) lists what it loaded.
    if (figures === undefined) continue;
    const base = anchor === '' ? undefined : results.load[anchor];
    rows.push([
      scenario,
      label,
      formatNumber(figures.requestsPerSecond),
      base === undefined ? '' : `${formatNumber(pairedRatio(results, key, anchor), 2)}x`,
      formatNumber(figures.p50Ms, 2),
      formatNumber(figures.p99Ms, 2),
      formatNumber(figures.rssBytes / 2 ** 20, 0),
    ]);
  }
  return rows;
}

function sseRows(results: Results, info: RunInfo): Rows {
  return [
    ['server', 'first event, median ms', `heap per idle stream (${info.idleStreams} open), KiB`],
    ...['raw', 'gateway'].map((server) => [
      server === 'raw' ? 'raw node:http SSE' : 'gateway /agents/{echo,ticker}/stream',
      formatNumber(results.firstEventMs[server], 3),
      formatNumber((results.heapPerIdleStream[server] ?? Number.NaN) / 1024, 1),
    ]),
  ];
}

function remoteRows(results: Results): Rows {
  const local = results.remote.local ?? Number.NaN;
  const row = (label: string, key: string, overhead: boolean) => [
    label,
    formatNumber(results.remote[key], 3),
    overhead ? formatNumber((results.remote[key] ?? Number.NaN) - local, 3) : '',
  ];
  return [
    ['invoke of the echo agent (9 words)', 'median ms', 'overhead ms (minus local)'],
    row('local, in process', 'local', false),
    row('fetch POST /agents/echo/invoke (REST, for scale)', 'rest', true),
    row('a2a-http remote agent (POST /tasks?wait)', 'a2aHttp', true),
    row('a2a-sdk remote agent (JSON-RPC SendMessage)', 'a2aSdk', true),
  ];
}

function coldStartRows(results: Results): Rows {
  const figures = results.coldStart;
  const floor = figures?.floorMs ?? Number.NaN;
  const row = (label: string, ms: number | undefined) => [
    label,
    formatNumber(ms, 1),
    `${formatNumber((ms ?? Number.NaN) / floor, 2)}x`,
  ];
  return [
    ['start to the first /healthz 200', 'median ms', 'ratio to bare node:http'],
    row('bare node:http server (the floor: Node starting)', figures?.floorMs),
    row('gateway artifact, empty compile cache (a new container)', figures?.coldMs),
    row('gateway artifact, compile cache warm (later starts)', figures?.warmMs),
    [
      `artifact size: ${formatNumber((figures?.artifactBytes ?? Number.NaN) / 2 ** 20, 2)} MiB`,
      '',
      '',
    ],
  ];
}

/**
 * How a subject's requests per second compare with its anchor's: the median of their ratios round
 * by round when both were loaded in the same rounds (each round's two runs a few seconds apart,
 * so a spell of the shared machine lands on both), else the ratio of their medians.
 */
export function pairedRatio(results: Results, key: string, anchor: string): number {
  const own = results.load[key];
  const base = results.load[anchor];
  const rounds = own?.roundsPerSecond;
  const baseRounds = base?.roundsPerSecond;
  if (rounds !== undefined && rounds.length > 0 && rounds.length === baseRounds?.length) {
    return median(rounds.map((value, round) => value / (baseRounds[round] as number)));
  }
  return (own?.requestsPerSecond ?? Number.NaN) / (base?.requestsPerSecond ?? Number.NaN);
}

function targetRows(results: Results): Rows {
  const rows: Rows = [['target', 'measured', 'wanted', 'met']];
  const push = (...[name, measured, wanted, met]: TargetRow) => {
    if (met !== undefined) rows.push([name, measured, wanted, met ? 'yes' : 'NO']);
  };
  // A figure a run of some groups (`--only`) did not measure is NaN: its target is left out.
  const add = (name: string, measured: string, wanted: string, value: number, met: boolean) =>
    push(name, measured, wanted, Number.isNaN(value) ? undefined : met);
  // Three decimals: a ratio a hair under its target must not print as the target.
  const x = (value: number) => `${formatNumber(value, 3)}x`;
  const restRatio = pairedRatio(results, 'invoke/gateway', 'invoke/raw');
  add('REST invoke vs raw node:http', x(restRatio), '>= 0.80x', restRatio, restRatio >= 0.8);
  // Costs less than twice: a one-message invoke's rate under twice the long conversation's.
  const historyCost = 1 / pairedRatio(results, 'invoke-50/gateway', 'invoke/gateway');
  add('50-message invoke cost vs 1-message', x(historyCost), '< 2x', historyCost, historyCost < 2);
  const taskRatio = pairedRatio(results, 'send-task/gateway', 'send-task/sdk-express');
  add('SendMessage (Task) vs SDK Express', x(taskRatio), '>= 3x', taskRatio, taskRatio >= 3);
  const ourP99 = results.load['send-task/gateway']?.p99Ms ?? Number.NaN;
  const theirP99 = results.load['send-task/sdk-express']?.p99Ms ?? Number.NaN;
  add(
    'SendMessage (Task) p99 vs SDK Express',
    `${formatNumber(ourP99, 2)} vs ${formatNumber(theirP99, 2)} ms`,
    'lower',
    ourP99 + theirP99,
    ourP99 < theirP99,
  );
  const messageRatio = pairedRatio(results, 'send-message/gateway', 'send-message/sdk-express');
  add(
    'SendMessage (Message) vs SDK Express',
    x(messageRatio),
    '>= 1.5x',
    messageRatio,
    messageRatio >= 1.5,
  );
  const streamRatio = pairedRatio(results, 'stream/gateway', 'stream/sdk-express');
  add(
    'SendStreamingMessage vs SDK Express',
    x(streamRatio),
    '>= 2x',
    streamRatio,
    streamRatio >= 2,
  );
  const sseRatio = pairedRatio(results, 'sse/gateway', 'sse/raw');
  add('SSE streams/s vs raw node:http', x(sseRatio), '>= 0.60x', sseRatio, sseRatio >= 0.6);
  const first = results.firstEventMs.gateway ?? Number.NaN;
  add('SSE time to first event', `${formatNumber(first, 3)} ms`, '<= 0.5 ms', first, first <= 0.5);
  const heap = (results.heapPerIdleStream.gateway ?? Number.NaN) / 1024;
  add('SSE heap per idle stream', `${formatNumber(heap, 1)} KiB`, '<= 8 KiB', heap, heap <= 8);
  const tasksRatio = pairedRatio(results, 'tasks-wait/gateway', 'invoke/raw');
  add(
    'POST /tasks?wait vs raw node:http',
    x(tasksRatio),
    '>= 0.70x',
    tasksRatio,
    tasksRatio >= 0.7,
  );
  const overhead = (results.remote.a2aHttp ?? Number.NaN) - (results.remote.local ?? Number.NaN);
  add(
    'a2a-http remote invoke overhead',
    `${formatNumber(overhead, 3)} ms`,
    '< 1 ms',
    overhead,
    overhead < 1,
  );
  const cold = results.coldStart?.coldMs ?? Number.NaN;
  add(
    'artifact cold start to /healthz 200',
    `${formatNumber(cold, 1)} ms`,
    '< 300 ms',
    cold,
    cold < 300,
  );
  for (const row of adapterTargetRows(results, pairedRatio)) push(...row);
  const postgresRatio = pairedRatio(results, 'pg-send/gateway', 'pg-send/sdk-express');
  add(
    'SendMessage (Task), PostgreSQL, vs SDK DatabaseTaskStore',
    x(postgresRatio),
    '>= 3x',
    postgresRatio,
    postgresRatio >= 3,
  );
  for (const row of replicaTargetRows(results)) push(...row);
  return rows;
}

function header(info: RunInfo): string[] {
  const { machine, settings } = info;
  return [
    `Machine: ${machine.cpu}, ${machine.cores} CPUs, ${machine.memoryGiB} GiB; ${machine.kernel}`,
    `Node ${machine.node}; ${machine.wrk}; ${machine.date}; ${info.pinned}`,
    `Load: wrk, 1 thread, ${settings.connections} connections, 127.0.0.1; warm-up ${settings.warmupSeconds} s,` +
      ` then the median of ${settings.runs} runs of ${settings.seconds} s; total ${formatNumber(info.seconds, 0)} s`,
    'Ratios: the median of the ratios round by round (the servers compared take turns in each round)',
    ...(info.steal === ''
      ? []
      : [`CPU time taken by the host (steal) during the run: ${info.steal}`]),
  ];
}

/** The report as a plain-text table (for the terminal) and as Markdown (for BENCHMARKS.md). */
export function renderReport(results: Results, info: RunInfo): { text: string; markdown: string } {
  const has = (record: object | undefined) =>
    record !== undefined && Object.keys(record).length > 0;
  // A run of some scenario groups only (`--only`) shows the tables it filled.
  const sections: [title: string, rows: Rows][] = (
    [
      ['Throughput and latency', loadRows(results), has(results.load)],
      [
        'SSE latency and memory',
        sseRows(results, info),
        has(results.firstEventMs) || has(results.heapPerIdleStream),
      ],
      ['Remote-agent overhead', remoteRows(results), has(results.remote)],
      ['Cold start of the deployable artifact', coldStartRows(results), has(results.coldStart)],
      [
        'Framework adapters: time to the first event',
        adapterRows(results),
        has(results.adapterFirstEvent),
      ],
      [
        'PostgreSQL replicas: cross-replica event and cancel',
        replicaRows(results),
        has(results.crossReplica),
      ],
    ] as const
  )
    .filter(([, , shown]) => shown)
    .map(([title, rows]) => [title, rows]);
  const targets = targetRows(results);
  const text = [
    ...header(info),
    '',
    ...sections.flatMap(([, rows]) => [textTable(rows), '']),
    'Targets',
    textTable(targets),
  ].join('\n');
  const markdown = [
    ...header(info).map((line) => `${line}  `),
    '',
    ...sections.flatMap(([title, rows]) => [`### ${title}`, '', markdownTable(rows), '']),
    '### Targets',
    '',
    markdownTable(targets),
  ].join('\n');
  return { text, markdown };
}

const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

/**
 * Writes the results into BENCHMARKS.md at the repository root, between its result markers, so
 * the hand-written parts (how to run it, profile findings) stay; returns the file's path.
 */
export function writeReport(markdown: string): string {
  const file = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));
  const block = `${START}\n${markdown}\n${END}`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  const next =
    start >= 0 && end > start
      ? `${current.slice(0, start)}${block}${current.slice(end + END.length)}`
      : `# Benchmarks\n\nWritten by \`pnpm bench\` (see bench/README.md).\n\n${block}\n`;
  writeFileSync(file, next);
  return file;
}
