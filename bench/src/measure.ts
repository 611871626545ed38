import { Agent } from 'node:http';
import type { ServerChild } from './child.ts';
import { post } from './client.ts';
import { median } from './table.ts';
import { runWrk, type WrkRequest } from './wrk.ts';

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
}

/**
 * Sends one request and checks its answer (so a wrong route or an error is never measured),
 * warms up, then runs wrk several times; every figure is the median of the runs. Fails when any
 * run saw an error (non-2xx, socket error or timeout).
 */
export async function loadScenario(
  server: ServerChild,
  request: WrkRequest,
  check: (status: number, text: string) => boolean,
  settings: LoadSettings,
): Promise<LoadFigures> {
  const agent = new Agent({ keepAlive: false });
  const once = await post(request.url, request.body.replaceAll('{{n}}', 'check'), agent, {
    ...request.headers,
  });
  agent.destroy();
  if (!check(once.status, once.text)) {
    throw new Error(`unexpected answer from ${request.url}: ${once.status} ${once.text}`);
  }
  const wrk = { connections: settings.connections, cpus: settings.loadCpus };
  await runWrk(request, { ...wrk, seconds: settings.warmupSeconds });
  const runs = [];
  for (let index = 0; index < settings.runs; index += 1) {
    const run = await runWrk(request, { ...wrk, seconds: settings.seconds });
    if (run.errors > 0) {
      throw new Error(`${run.errors} of ${run.requests} requests to ${request.url} failed`);
    }
    runs.push(run);
  }
  return {
    requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
    p50Ms: median(runs.map((run) => run.p50Ms)),
    p99Ms: median(runs.map((run) => run.p99Ms)),
    rssBytes: server.rss(),
  };
}
