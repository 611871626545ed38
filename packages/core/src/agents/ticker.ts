import { sleep } from '../abortable.ts';
import type { Agent } from '../agent.ts';
import { defineAgent } from '../define-agent.ts';
import { InvalidInputError } from '../errors/invalid-input-error.ts';

const TICKER_INPUT = /^\s*(\d+)?\s*(?:every\s+(\d+)\s*(ms|s))?\s*$/i;
const MAX_COUNT = 10_000;
const MAX_INTERVAL_MS = 60_000;

/** A parsed ticker input: how many ticks, and how far apart. */
export interface TickerPlan {
  count: number;
  intervalMs: number;
}

/** Parses a ticker input such as `5`, `20 every 250ms` or `every 2s` (defaults: 5 every 500ms). */
export function parseTickerInput(input: string): TickerPlan {
  const match = TICKER_INPUT.exec(input);
  if (match === null) {
    throw new InvalidInputError(
      `Ticker input must look like '5' or '20 every 250ms', got '${input}'`,
      {
        field: 'input',
      },
    );
  }
  const count = match[1] === undefined ? 5 : Number(match[1]);
  const unit = match[3]?.toLowerCase() === 's' ? 1000 : 1;
  const intervalMs = match[2] === undefined ? 500 : Number(match[2]) * unit;
  if (count < 1 || count > MAX_COUNT) {
    throw new InvalidInputError(`Tick count must be from 1 to ${MAX_COUNT}`, { field: 'input' });
  }
  if (intervalMs > MAX_INTERVAL_MS) {
    throw new InvalidInputError(`Tick interval must be at most ${MAX_INTERVAL_MS}ms`, {
      field: 'input',
    });
  }
  return { count, intervalMs };
}

/**
 * Creates the `ticker` agent: streams `tick 1` ... `tick N` (one per line) at an interval and
 * stops at once when its signal aborts.
 */
export function createTickerAgent(name = 'ticker'): Agent {
  return defineAgent({
    name,
    description:
      "Streams 'tick 1' ... 'tick N' at an interval; input like '5' or '20 every 250ms'.",
    instructions: 'Count ticks until done or canceled.',
    model: 'agentport/ticker',
    async *run(input, { signal }) {
      const { count, intervalMs } = parseTickerInput(input);
      for (let tick = 1; tick <= count; tick += 1) {
        if (tick > 1) await sleep(intervalMs, signal);
        yield { type: 'text-delta', delta: tick === 1 ? 'tick 1' : `\ntick ${tick}` };
      }
    },
  });
}
