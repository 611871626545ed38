import { describe, expect, it } from 'vitest';
import { type Results, type RunInfo, renderReport } from './report.ts';

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

  it('names the host steal in the header, and leaves the line out when unknown', () => {
    const results: Results = { load: {}, firstEventMs: {}, heapPerIdleStream: {}, remote: {} };
    expect(renderReport(results, info).markdown).toContain(
      'CPU time taken by the host (steal) during the run: CPU 0 3.3%, CPU 1 12.2%',
    );
    expect(renderReport(results, { ...info, steal: '' }).text).not.toContain('steal');
  });
});
