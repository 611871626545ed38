// Issue 35's cross-replica scenarios: two gateway replicas, each its own process, on one
// PostgreSQL schema. The parent reads their SSE streams and compares its wall clock with the
// moments the agents on replica A wrote down on theirs (the same machine's clock; their offset,
// read over IPC, is reported with the figures).
import { Agent, type ClientRequest, request } from 'node:http';
import type { ServerChild } from './child.ts';
import { wallClock } from './replica-agents.ts';
import { median, percentile } from './table.ts';

/** The median and p99 of some latencies, and how many were taken. */
export interface LatencyFigures {
  medianMs: number;
  p99Ms: number;
  samples: number;
}

/** The cross-replica scenarios' figures. */
export interface CrossReplicaFigures {
  /** From an event's yield by the agent on A to its arrival at a reader of B's SSE stream. */
  eventMs: LatencyFigures;
  /** The same events' arrival at a reader of A's own stream, for scale. */
  localEventMs: LatencyFigures;
  /** From a cancel sent to B to the abort signal of the agent running the task on A. */
  abortMs: LatencyFigures;
  /** From the same cancel to the `canceled` status update's arrival on A's SSE stream. */
  canceledOnAMs: LatencyFigures;
  /** A's wall clock minus the parent's, read over IPC, and how far off that reading may be. */
  clockOffsetMs: number;
  clockUncertaintyMs: number;
}

/** How many samples to take. */
export interface CrossReplicaOptions {
  /** Events of the stamp task counted (after `warmupEvents` more). */
  events: number;
  warmupEvents: number;
  /** Canceled hold tasks counted (after `warmupCancels` more). */
  cancels: number;
  warmupCancels: number;
}

const json = { 'content-type': 'application/json' };
/** The stamp agent's ticks are this far apart: each event is appended and heard on its own. */
const STAMP_INTERVAL_MS = 10;

function figures(values: readonly number[]): LatencyFigures {
  return { medianMs: median(values), p99Ms: percentile(values, 99), samples: values.length };
}

/** An SSE stream being read: `ended` settles at its end, and `stop` closes it early. */
interface Followed {
  ended: Promise<void>;
  stop(): void;
}

/** Reads an SSE stream, handing each event's parsed data and the wall clock of its chunk's arrival. */
function followStream(
  url: string,
  agent: Agent,
  onEvent: (data: { type?: string; delta?: string; status?: string }, at: number) => void,
): Followed {
  let stopped = false;
  let outgoing: ClientRequest | undefined;
  let settle = () => undefined as undefined;
  const ended = new Promise<void>((resolve, reject) => {
    settle = () => void resolve();
    const fail = (error: Error) => (stopped ? resolve() : reject(error));
    outgoing = request(url, { agent, headers: { accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) fail(new Error(`${url}: ${response.statusCode}`));
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        const at = wallClock();
        text += chunk;
        const frames = text.split('\n\n');
        text = frames.pop() ?? '';
        for (const frame of frames) {
          const line = frame.split('\n').find((each) => each.startsWith('data:'));
          if (line !== undefined) onEvent(JSON.parse(line.slice('data:'.length)), at);
        }
      });
      response.on('end', resolve);
      response.on('error', fail);
    });
    outgoing.on('error', fail);
    outgoing.end();
  });
  return {
    ended,
    stop: () => {
      stopped = true;
      outgoing?.destroy();
      settle();
    },
  };
}

async function createTask(server: ServerChild, agentName: string, input: string): Promise<string> {
  const response = await fetch(`${server.url}/agents/${agentName}/tasks`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ input }),
  });
  const body = (await response.json()) as { task?: { id?: string } };
  const id = body.task?.id;
  if (!response.ok || id === undefined) {
    throw new Error(`creating a ${agentName} task: ${response.status}`);
  }
  return id;
}

/** A's clock minus the parent's: the reading of the quickest of 20 IPC round trips. */
async function clockOffset(server: ServerChild): Promise<{ offset: number; uncertainty: number }> {
  let best = { offset: Number.NaN, uncertainty: Number.POSITIVE_INFINITY };
  for (let index = 0; index < 20; index += 1) {
    const sent = wallClock();
    const theirs = await server.clock();
    const back = wallClock();
    const uncertainty = (back - sent) / 2;
    if (uncertainty < best.uncertainty) best = { offset: theirs - (sent + back) / 2, uncertainty };
  }
  return best;
}

/**
 * Scenario 3: one stamp task on A, read from its first event by a stream on B and one on A; each
 * text delta holds the wall clock of its yield on A, compared with its chunk's arrival.
 */
async function eventLatencies(
  a: ServerChild,
  b: ServerChild,
  options: CrossReplicaOptions,
): Promise<{ remote: number[]; local: number[] }> {
  const count = options.warmupEvents + options.events;
  const id = await createTask(a, 'stamp', `${count} every ${STAMP_INTERVAL_MS}ms`);
  const path = `/agents/stamp/tasks/${id}/events?lastEventId=0`;
  const read = (server: ServerChild, into: number[]) => {
    const agent = new Agent({ keepAlive: false });
    let seen = 0;
    const followed = followStream(`${server.url}${path}`, agent, (data, at) => {
      if (data.type !== 'text-delta') return;
      seen += 1;
      if (seen > options.warmupEvents) into.push(at - Number(data.delta));
    });
    return followed.ended.finally(() => agent.destroy());
  };
  const remote: number[] = [];
  const local: number[] = [];
  await Promise.all([read(b, remote), read(a, local)]);
  if (remote.length !== options.events || local.length !== options.events) {
    throw new Error(`stamp task: ${remote.length} and ${local.length} of ${options.events} events`);
  }
  return { remote, local };
}

/**
 * Scenario 4, once: a hold task on A, followed on A until its agent runs; a cancel sent to B; the
 * times from sending it to the agent's abort on A (its own record) and to `canceled` on A's
 * stream (which ends with it).
 */
async function cancelOnce(
  a: ServerChild,
  b: ServerChild,
  agent: Agent,
): Promise<{ abort: number; canceled: number }> {
  const id = await createTask(a, 'hold', 'hold');
  let onRunning = () => undefined as undefined;
  const running = new Promise<void>((resolve) => {
    onRunning = () => void resolve();
  });
  let canceledAt = Number.NaN;
  const followed = followStream(
    `${a.url}/agents/hold/tasks/${id}/events?lastEventId=0`,
    agent,
    (data, at) => {
      if (data.type === 'text-delta') onRunning();
      if (data.type === 'status-update' && data.status === 'canceled') canceledAt = at;
    },
  );
  try {
    let started = false;
    await Promise.race([running.then(() => (started = true)), followed.ended]);
    if (!started) throw new Error(`A's stream of ${id} ended before its agent ran`);
    const sent = wallClock();
    const response = await fetch(`${b.url}/agents/hold/tasks/${id}/cancel`, {
      method: 'POST',
      headers: json,
      body: '{}',
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`cancel on B: ${response.status}`);
    await followed.ended;
    if (Number.isNaN(canceledAt)) throw new Error(`A's stream of ${id} ended without canceled`);
    const abortedAt = await a.abortedAt(id);
    if (abortedAt === undefined) throw new Error(`the hold agent on A saw no abort of ${id}`);
    return { abort: abortedAt - sent, canceled: canceledAt - sent };
  } finally {
    followed.stop();
  }
}

/** Measures both cross-replica scenarios on replicas A and B (two processes, one schema). */
export async function measureCrossReplica(
  a: ServerChild,
  b: ServerChild,
  options: CrossReplicaOptions,
): Promise<CrossReplicaFigures> {
  const clock = await clockOffset(a);
  const events = await eventLatencies(a, b, options);
  const agent = new Agent({ keepAlive: true });
  const aborts: number[] = [];
  const canceled: number[] = [];
  try {
    for (let index = 0; index < options.warmupCancels + options.cancels; index += 1) {
      const once = await cancelOnce(a, b, agent);
      if (index < options.warmupCancels) continue;
      aborts.push(once.abort);
      canceled.push(once.canceled);
    }
  } finally {
    agent.destroy();
  }
  return {
    eventMs: figures(events.remote),
    localEventMs: figures(events.local),
    abortMs: figures(aborts),
    canceledOnAMs: figures(canceled),
    clockOffsetMs: clock.offset,
    clockUncertaintyMs: clock.uncertainty,
  };
}
