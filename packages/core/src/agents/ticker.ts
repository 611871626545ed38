import { sleep } from '../abortable.ts';
import type { Agent } from '../agent.ts';
import { defineAgent } from '../define-agent.ts';
import { InvalidInputError } from '../errors/invalid-input-error.ts';

// Matched against the trimmed input; no two quantifiers of the same class meet, so the match is
// linear (the untrimmed pattern backtracked cubically on a run of spaces).
const TICKER_INPUT = /^(\d+)?(?:\s*every\s+(\d+)\s*(ms|s))?$/i;
const MAX_INPUT_LENGTH = 100;
const MAX_COUNT = 10_000;
const MAX_INTERVAL_MS = 60_000;
/** A run may last at most this long (count x interval): a demo agent holds no slot for days. */
const MAX_DURATION_MS = 600_000;

/** A parsed ticker input: how many ticks, and how far apart. */
export interface TickerPlan {
  count: number;
  intervalMs: number;
}

/** Parses a ticker input such as `5`, `20 every 250ms` or `every 2s` (defaults: 5 every 500ms). */
export function parseTickerInput(input: string): TickerPlan {
  const text = input.trim();
  const match = text.length > MAX_INPUT_LENGTH ? null : TICKER_INPUT.exec(text);
  if (match === null) {
    const shown = text.length > 40 ? `${text.slice(0, 40)}...` : text;
    throw new InvalidInputError(
      `Ticker input must look like '5' or '20 every 250ms', got '${shown}'`,
      { field: 'input' },
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
  if (count * intervalMs > MAX_DURATION_MS) {
    throw new InvalidInputError(
      `Ticks must end within ${MAX_DURATION_MS / 60_000} minutes (count x interval)`,
      { field: 'input' },
    );
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
