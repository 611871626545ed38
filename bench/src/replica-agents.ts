// The bench-only agents of the cross-replica scenarios (issue 35), served by both PostgreSQL
// gateway replicas: `stamp` writes the moment it yields each event into the event, and `hold`
// runs until its signal aborts and keeps the moment it did, for the parent to ask over IPC.
import { type Agent, defineAgent, sleep } from '@agentport/core';
import { parseTickerInput } from '@agentport/core/agents';

/** Milliseconds since the epoch, to the microsecond: comparable between processes of one machine. */
export const wallClock = (): number => performance.timeOrigin + performance.now();

/** The wait before `stamp`'s first event, long enough for a reader to be following the task. */
const STAMP_LEAD_MS = 300;
/** The longest `hold` runs unaborted, so a lost cancel cannot keep its task for ever. */
const HOLD_MS = 60_000;

/**
 * `stamp`: input as the ticker's (`'400 every 10ms'`); after a lead, each tick a text delta whose
 * text is {@link wallClock} at its yield.
 */
function createStampAgent(): Agent {
  return defineAgent({
    name: 'stamp',
    description: 'Yields text deltas holding the wall clock at their yield (bench only).',
    async *run(input, { signal }) {
      const { count, intervalMs } = parseTickerInput(input);
      await sleep(STAMP_LEAD_MS, signal);
      for (let tick = 1; tick <= count; tick += 1) {
        if (tick > 1) await sleep(intervalMs, signal);
        yield { type: 'text-delta', delta: String(wallClock()) };
      }
    },
  });
}

/** When each `hold` task's signal aborted ({@link wallClock}), by task id. */
const abortedAt = new Map<string, number>();

/** When the `hold` agent of this process saw task `id`'s abort, once (undefined if it has not). */
export function takeAbortTime(id: string): number | undefined {
  const time = abortedAt.get(id);
  abortedAt.delete(id);
  return time;
}

/** `hold`: yields `holding`, then waits for its signal to abort and records when it did. */
function createHoldAgent(): Agent {
  return defineAgent({
    name: 'hold',
    description: 'Runs until canceled, recording when its abort came (bench only).',
    async *run(_input, { signal, taskId }) {
      signal.addEventListener(
        'abort',
        () => {
          if (taskId !== undefined) abortedAt.set(taskId, wallClock());
        },
        { once: true },
      );
      yield { type: 'text-delta', delta: 'holding' };
      await sleep(HOLD_MS, signal);
    },
  });
}

/** The cross-replica scenarios' agents. */
export function createReplicaAgents(): Agent[] {
  return [createStampAgent(), createHoldAgent()];
}
