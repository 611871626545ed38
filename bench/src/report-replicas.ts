// The cross-replica scenarios' part of the report (issue 35): their latency table and targets.

import type { LatencyFigures } from './replicas.ts';
import type { Results } from './report.ts';
import type { TargetRow } from './report-adapters.ts';
import { formatNumber } from './table.ts';

/** The table of the cross-replica latencies, each a median and a p99 of so many samples. */
export function replicaRows(results: Results): string[][] {
  const figures = results.crossReplica;
  const row = (label: string, latency: LatencyFigures | undefined) => [
    label,
    formatNumber(latency?.medianMs, 3),
    formatNumber(latency?.p99Ms, 3),
    formatNumber(latency?.samples),
  ];
  return [
    ['two gateway replicas, A and B, on one schema', 'median ms', 'p99 ms', 'samples'],
    row('event yielded on A, read from an SSE stream on B', figures?.eventMs),
    row('the same events read from an SSE stream on A (for scale)', figures?.localEventMs),
    row('cancel sent to B, agent on A aborted', figures?.abortMs),
    row("cancel sent to B, canceled on A's SSE stream", figures?.canceledOnAMs),
    [
      `clock of A minus the reader's: ${formatNumber(figures?.clockOffsetMs, 3)} ms (+/- ${formatNumber(figures?.clockUncertaintyMs, 3)})`,
      '',
      '',
      '',
    ],
  ];
}

/** The targets: an event from A on B's stream in <= 2 ms median, <= 10 ms p99; the abort <= 100 ms p99. */
export function replicaTargetRows(results: Results): TargetRow[] {
  const figures = results.crossReplica;
  if (figures === undefined) return [];
  const ms = (value: number) => `${formatNumber(value, 3)} ms`;
  const { eventMs, abortMs } = figures;
  return [
    ['cross-replica event, median', ms(eventMs.medianMs), '<= 2 ms', eventMs.medianMs <= 2],
    ['cross-replica event, p99', ms(eventMs.p99Ms), '<= 10 ms', eventMs.p99Ms <= 10],
    ['cross-replica cancel to abort, p99', ms(abortMs.p99Ms), '<= 100 ms', abortMs.p99Ms <= 100],
  ];
}
