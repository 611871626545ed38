// The framework-adapter scenario's part of the report (issue 34): its first-event table and its
// targets; its throughput rows are in the load table with the others.
import type { Results } from './report.ts';
import { formatNumber } from './table.ts';

/** One target of the report: its name, the figure measured, the figure wanted and whether met. */
export type TargetRow = [name: string, measured: string, wanted: string, met: boolean | undefined];

/** The scenario's servers, as the first-event table names them. */
const ADAPTER_SERVERS: [key: string, label: string][] = [
  ['ai-sdk-hono', "AI SDK's own route on Hono"],
  ['gateway', 'gateway (fromAiSdk)'],
  ['mastra-hono', 'Mastra on @mastra/hono'],
];

/**
 * The table of each server's median times to its first SSE frame, to its tool-call frame and to
 * the end of the stream.
 */
export function adapterRows(results: Results): string[][] {
  return [
    [
      'AI SDK agent served by',
      'first SSE frame, median ms',
      'tool-call frame, median ms',
      'whole stream, median ms',
    ],
    ...ADAPTER_SERVERS.map(([key, label]) => {
      const times = results.adapterFirstEvent?.[key];
      return [
        label,
        formatNumber(times?.frameMs, 3),
        formatNumber(times?.markerMs, 3),
        formatNumber(times?.totalMs, 3),
      ];
    }),
  ];
}

/**
 * The scenario's targets: the gateway's streams/s at least the AI SDK route's and twice Mastra's
 * (`ratio` takes them round by round), and its time to the tool-call frame no worse than the
 * AI SDK route's; a figure not measured has `met` undefined.
 */
export function adapterTargetRows(
  results: Results,
  ratio: (results: Results, key: string, anchor: string) => number,
): TargetRow[] {
  const ifMeasured = (value: number, met: boolean) => (Number.isNaN(value) ? undefined : met);
  const x = (value: number) => `${formatNumber(value, 3)}x`;
  const aiSdk = ratio(results, 'adapters/gateway', 'adapters/ai-sdk-hono');
  const ours = results.adapterFirstEvent?.gateway?.markerMs ?? Number.NaN;
  const theirs = results.adapterFirstEvent?.['ai-sdk-hono']?.markerMs ?? Number.NaN;
  const mastra = ratio(results, 'adapters/gateway', 'adapters/mastra-hono');
  return [
    ['AI SDK agent streams/s vs its own route', x(aiSdk), '>= 1.0x', ifMeasured(aiSdk, aiSdk >= 1)],
    [
      'AI SDK agent time to the tool-call frame vs its own route',
      `${formatNumber(ours, 3)} vs ${formatNumber(theirs, 3)} ms`,
      'no worse',
      ifMeasured(ours + theirs, ours <= theirs),
    ],
    [
      'AI SDK agent streams/s vs Mastra on Hono',
      x(mastra),
      '>= 2x',
      ifMeasured(mastra, mastra >= 2),
    ],
  ];
}
