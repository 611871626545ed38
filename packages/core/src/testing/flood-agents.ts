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
