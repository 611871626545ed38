import { describe, expect, it } from 'vitest';
import type { LoadFigures } from './measure.ts';
import { pairedRatio, type Results, type RunInfo, renderReport, roundLines } from './report.ts';

const figures = (requestsPerSecond: number) => ({
  requestsPerSecond,
  p50Ms: 1,
  p99Ms: 2,
  rssBytes: 100 * 2 ** 20,
});

const info: RunInfo = {
  machine: {
    cpu: 'Test CPU',
    cores: 2,
    memoryGiB: 24,
    node: 'v24.0.0',
    wrk: 'wrk 4.1.0',
    kernel: 'Linux 6',
    date: '2026-11-22',
  },
  settings: { warmupSeconds: 2, seconds: 3, runs: 5, connections: 32, loadCpus: '1' },
  pinned: 'server on CPU 0, load on CPU 1',
  idleStreams: 2000,
  seconds: 250,
  steal: 'CPU 0 3.3%, CPU 1 12.2%',
};

describe('renderReport', () => {
  it('prints a ratio a hair under its target with three decimals, as missed', () => {
    const results: Results = {
      load: { 'invoke/raw': figures(21_938), 'tasks-wait/gateway': figures(15_253) },
      firstEventMs: {},
      heapPerIdleStream: {},
      remote: {},
    };
    const { text } = renderReport(results, info);
    const row = text.split('\n').find((line) => line.startsWith('POST /tasks?wait vs raw'));
    expect(row).toMatch(/0\.695x\s+>= 0\.70x\s+NO/);
  });

  it('takes ratios round by round when both sides ran in the same rounds', () => {
    // Medians 20,000 and 30,000 (0.667x), but every round's own ratio is 0.75x or more: the
    // anchor's fast rounds are not the subject's.
    const results: Results = {
      load: {
        'invoke/raw': { ...figures(30_000), roundsPerSecond: [40_000, 30_000, 20_000] },
        'tasks-wait/gateway': { ...figures(20_000), roundsPerSecond: [30_000, 24_000, 15_000] },
      },
      firstEventMs: {},
      heapPerIdleStream: {},
      remote: {},
    };
    expect(pairedRatio(results, 'tasks-wait/gateway', 'invoke/raw')).toBe(0.75);
    const { text } = renderReport(results, info);
    expect(text.split('\n').find((line) => line.startsWith('POST /tasks?wait vs raw'))).toMatch(
      /0\.750x\s+>= 0\.70x\s+yes/,
    );
    expect(text).toMatch(/gateway \/agents\/echo\/tasks\?wait=10\s+20,000\s+0\.75x/);
    // Without rounds in common, the ratio of the medians.
    const unpaired = { ...results.load['invoke/raw'], roundsPerSecond: [30_000] } as LoadFigures;
    const mixed = { ...results, load: { ...results.load, 'invoke/raw': unpaired } };
    expect(pairedRatio(mixed, 'tasks-wait/gateway', 'invoke/raw')).toBeCloseTo(2 / 3, 10);
  });

  it('names the host steal in the header, and leaves the line out when unknown', () => {
    const results: Results = { load: {}, firstEventMs: {}, heapPerIdleStream: {}, remote: {} };
    expect(renderReport(results, info).markdown).toContain(
      'CPU time taken by the host (steal) during the run: CPU 0 3.3%, CPU 1 12.2%',
    );
    expect(renderReport(results, { ...info, steal: '' }).text).not.toContain('steal');
  });
});

describe('renderReport, framework adapters', () => {
  const adapters: Results = {
    load: {
      'adapters/ai-sdk-hono': { ...figures(200), roundsPerSecond: [200, 100] },
      'adapters/gateway': { ...figures(210), roundsPerSecond: [220, 100] },
      'adapters/mastra-hono': { ...figures(100), roundsPerSecond: [100, 60] },
    },
    firstEventMs: {},
    heapPerIdleStream: {},
    remote: {},
    adapterFirstEvent: {
      gateway: { frameMs: 3.9, markerMs: 3.91, totalMs: 4.2 },
      'ai-sdk-hono': { frameMs: 4.9, markerMs: 4.95, totalMs: 5.3 },
      'mastra-hono': { frameMs: 5.1, markerMs: 5.12, totalMs: 6.4 },
    },
  };
  const line = (text: string, start: string) =>
    text.split('\n').find((each) => each.startsWith(start));

  it('holds the gateway to the AI SDK route round by round and to twice Mastra', () => {
    const { text } = renderReport(adapters, info);
    // Rounds 1.10x and 1.00x; against Mastra 2.20x and 1.67x.
    expect(line(text, 'AI SDK agent streams/s vs its own route')).toMatch(
      /1\.050x\s+>= 1\.0x\s+yes/,
    );
    expect(line(text, 'AI SDK agent streams/s vs Mastra')).toMatch(/1\.933x\s+>= 2x\s+NO/);
    expect(line(text, 'AI SDK agent time to the tool-call frame')).toMatch(
      /3\.910 vs 4\.950 ms\s+no worse\s+yes/,
    );
    expect(line(text, 'gateway (fromAiSdk)')).toMatch(/3\.900\s+3\.910\s+4\.200/);
  });

  it('shows only what a run of some groups measured', () => {
    const { text, markdown } = renderReport(adapters, info);
    expect(text).not.toContain('REST invoke');
    expect(text).not.toContain('raw node:http');
    expect(markdown).not.toContain('### Cold start');
    expect(markdown).toContain('### Framework adapters: time to the first event');
    expect(line(text, 'target')).toBeDefined();
    expect(text.split('Targets')[1]?.match(/yes|NO/g)).toHaveLength(3);
  });
});

describe('renderReport, cross-replica scenarios', () => {
  const latency = (medianMs: number, p99Ms: number, samples: number) => ({
    medianMs,
    p99Ms,
    samples,
  });
  const replicas: Results = {
    load: {},
    firstEventMs: {},
    heapPerIdleStream: {},
    remote: {},
    crossReplica: {
      eventMs: latency(1.9, 10.2, 500),
      localEventMs: latency(1.2, 3.1, 500),
      abortMs: latency(2.8, 99.5, 50),
      canceledOnAMs: latency(3.4, 6, 50),
      clockOffsetMs: 0.001,
      clockUncertaintyMs: 0.046,
    },
  };
  const line = (text: string, start: string) =>
    text.split('\n').find((each) => each.startsWith(start));

  it('holds the event from A on B to 2 ms median and 10 ms p99, the abort to 100 ms p99', () => {
    const { text } = renderReport(replicas, info);
    expect(line(text, 'cross-replica event, median')).toMatch(/1\.900 ms\s+<= 2 ms\s+yes/);
    expect(line(text, 'cross-replica event, p99')).toMatch(/10\.200 ms\s+<= 10 ms\s+NO/);
    expect(line(text, 'cross-replica cancel to abort, p99')).toMatch(
      /99\.500 ms\s+<= 100 ms\s+yes/,
    );
    expect(line(text, 'event yielded on A, read from an SSE stream on B')).toMatch(
      /1\.900\s+10\.200\s+500/,
    );
    expect(text).toContain("clock of A minus the reader's: 0.001 ms (+/- 0.046)");
  });

  it('holds SendMessage on PostgreSQL to 3x the SDK on its DatabaseTaskStore, round by round', () => {
    const load = {
      'pg-send/gateway': { ...figures(1_300), roundsPerSecond: [1_200, 1_300, 1_350] },
      'pg-send/sdk-express': { ...figures(400), roundsPerSecond: [500, 400, 350] },
    };
    const { text } = renderReport({ ...replicas, load }, info);
    // Rounds 2.4x, 3.25x and 3.857x: their median.
    expect(line(text, 'SendMessage (Task), PostgreSQL, vs SDK DatabaseTaskStore')).toMatch(
      /3\.250x\s+>= 3x\s+yes/,
    );
  });

  it('shows the table and its targets only when the scenarios ran', () => {
    const { markdown } = renderReport(replicas, info);
    expect(markdown).toContain('### PostgreSQL replicas: cross-replica event and cancel');
    const { crossReplica: _, ...without } = replicas;
    const other = renderReport(without, info);
    expect(other.markdown).not.toContain('PostgreSQL replicas');
    expect(other.text).not.toContain('cross-replica');
  });
});

describe('roundLines', () => {
  it('lists the requests per second of each subject in round order', () => {
    const load: Record<string, LoadFigures> = {
      'invoke/raw': { ...figures(30_000), roundsPerSecond: [31_250.4, 18_002, 30_100] },
      'tasks-wait/gateway': { ...figures(21_000), roundsPerSecond: [21_000, 12_500.6, 22_000] },
    };
    expect(roundLines(load)).toEqual([
      'invoke/raw: 31,250 18,002 30,100 requests/s by round',
      'tasks-wait/gateway: 21,000 12,501 22,000 requests/s by round',
    ]);
  });
});
