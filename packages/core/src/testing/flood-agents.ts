import type { Agent } from '../agent.ts';
import { outputOf } from '../agent-output.ts';
import { defineAgent } from '../define-agent.ts';

/** Two agents that yield `events` text deltas back to back without ever waiting. */
export interface FloodAgents {
  /** A `defineAgent` run. */
  flood: Agent;
  /** The same, hand-written (its own `stream`, ending with `done`). */
  handFlood: Agent;
}

/** Agents for the tests that a run gives the event loop turns however fast it yields. */
export function createFloodAgents(events: number): FloodAgents {
  const flood = defineAgent({
    name: 'flood',
    async *run() {
      for (let index = 0; index < events; index += 1) yield { type: 'text-delta', delta: 'x' };
    },
  });
  const handFlood: Agent = {
    name: 'hand-flood',
    tools: [],
    handoffs: [],
    invoke: () => outputOf(handFlood.stream('x'), 'hand-flood'),
    async *stream() {
      for (let index = 0; index < events; index += 1) yield { type: 'text-delta', delta: 'x' };
      yield { type: 'done', output: 'x'.repeat(events) };
    },
  };
  return { flood, handFlood };
}

/** What a re-arming zero-delay timer saw while some work ran. */
export interface TimerTurns {
  /** How often it fired. */
  fired: number;
  /** Its longest wait between two firings (or from the start to the first), in milliseconds. */
  longest: number;
  /** How long the work took, in milliseconds. */
  elapsed: number;
}

/**
 * Runs `work` with a zero-delay timer that re-arms itself, and says how often it fired and how
 * long it waited at most: how often the work gave the event loop a turn.
 */
export async function timersDuring(work: () => Promise<unknown>): Promise<TimerTurns> {
  let fired = 0;
  let longest = 0;
  const started = performance.now();
  let last = started;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    fired += 1;
    timer = setTimeout(tick, 0);
  };
  timer = setTimeout(tick, 0);
  try {
    await work();
  } finally {
    clearTimeout(timer);
  }
  return { fired, longest, elapsed: performance.now() - started };
}
