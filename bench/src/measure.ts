import { Agent } from 'node:http';
import type { ServerChild } from './child.ts';
import { post } from './client.ts';
import { median } from './table.ts';
import { runWrk, type WrkRequest, type WrkResult } from './wrk.ts';

/** How long and how hard to load each scenario. */
export interface LoadSettings {
  warmupSeconds: number;
  seconds: number;
  runs: number;
  connections: number;
  /** CPU list for the load generator, or undefined not to pin. */
  loadCpus: string | undefined;
}

/** One scenario's figures on one server: medians over the runs. */
export interface LoadFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  rssBytes: number;
  /**
   * Requests per second of each run, in round order: the runs of subjects loaded together share
   * their rounds, so a ratio can be taken round by round (see `pairedRatio`).
   */
  roundsPerSecond?: number[];
}

/** One server and request of an interleaved group, under its results key. */
export interface LoadSubject {
  key: string;
  server: ServerChild;
  request: WrkRequest;
  check: (status: number, text: string) => boolean;
}

/** Whether an HTTP status is a success (2xx). */
export const succeeded = (status: number): boolean => status >= 200 && status < 300;

/** wrk's connections and CPUs, as every load of a bench uses them. */
export interface WrkLoad {
  connections: number;
  cpus: string | undefined;
}

/**
 * Sends `request` once, failing unless its answer passes `check` (so a wrong route or an error is
 * never measured), then warms the server up on it with wrk for `seconds`.
 */
export async function checkAndWarmUp(
  request: WrkRequest,
  check: LoadSubject['check'],
  wrk: WrkLoad,
  seconds: number,
): Promise<void> {
  const agent = new Agent({ keepAlive: false });
  const once = await post(request.url, request.body.replaceAll('{{n}}', 'check'), agent, {
    ...request.headers,
  });
  agent.destroy();
  if (!check(once.status, once.text)) {
    throw new Error(`unexpected answer from ${request.url}: ${once.status} ${once.text}`);
  }
  await runWrk(request, { ...wrk, seconds });
}

/**
 * Loads several subjects side by side: each is first checked and warmed up (see
 * {@link checkAndWarmUp}), then the subjects take turns, one wrk run each per round, in an order
 * reversed every round, so a slow spell of the machine falls on all of them rather than on
 * whichever ran then. Every figure is the median of its runs (each run's requests per second are
 * kept too, for ratios taken round by round);
 * fails when any run saw an error (non-2xx, socket error or timeout).
 */
export async function loadInterleaved(
  subjects: readonly LoadSubject[],
  settings: LoadSettings,
): Promise<Record<string, LoadFigures>> {
  const wrk: WrkLoad = { connections: settings.connections, cpus: settings.loadCpus };
  for (const { request, check } of subjects) {
    await checkAndWarmUp(request, check, wrk, settings.warmupSeconds);
  }
  const runs = new Map(subjects.map((subject) => [subject.key, [] as WrkResult[]]));
  for (let index = 0; index < settings.runs; index += 1) {
    const order = index % 2 === 0 ? subjects : [...subjects].reverse();
    for (const { key, request } of order) {
      const run = await runWrk(request, { ...wrk, seconds: settings.seconds });
      if (run.errors > 0) {
        throw new Error(`${run.errors} of ${run.requests} requests to ${request.url} failed`);
      }
      runs.get(key)?.push(run);
    }
  }
  return Object.fromEntries(
    subjects.map(({ key, server }) => {
      const own = runs.get(key) ?? [];
      return [
        key,
        {
          requestsPerSecond: median(own.map((run) => run.requestsPerSecond)),
          roundsPerSecond: own.map((run) => run.requestsPerSecond),
          p50Ms: median(own.map((run) => run.p50Ms)),
          p99Ms: median(own.map((run) => run.p99Ms)),
          rssBytes: server.rss(),
        },
      ];
    }),
  );
}
