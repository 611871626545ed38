import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Agent } from '../agent.ts';
import type { AgentEvent } from '../agent-event.ts';
import { createEchoAgent } from '../agents/echo.ts';
import { defineAgent } from '../define-agent.ts';
import { createTaskRunner } from '../tasks/task-runner.ts';
import { createFloodAgents, timersDuring } from '../testing/flood-agents.ts';
import { pacedEvents } from './paced-events.ts';
import { EVENTS_PER_LOOK, RunPace, TURN_BUDGET_MS } from './run-pace.ts';

const EVENTS = 100_000;

/** A defineAgent run and a hand-written one, each yielding EVENTS deltas without waiting. */
const { flood, handFlood } = createFloodAgents(EVENTS);

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('RunPace', () => {
  it('asks for a turn only once a run has been busy for the budget since its last one', () => {
    const now = vi.spyOn(performance, 'now').mockReturnValue(1_000);
    const pace = new RunPace();
    const spend = (events: number) => Array.from({ length: events }, () => pace.spend());
    // The clock is read once every EVENTS_PER_LOOK events; the first read sets the start.
    expect(spend(2 * EVENTS_PER_LOOK).some(Boolean)).toBe(false);
    expect(now).toHaveBeenCalledTimes(2);
    now.mockReturnValue(1_000 + TURN_BUDGET_MS);
    expect(spend(EVENTS_PER_LOOK - 1).some(Boolean)).toBe(false);
    expect(pace.spend()).toBe(true);
    pace.rest();
    expect(spend(EVENTS_PER_LOOK).some(Boolean)).toBe(false);
  });
});

describe('a run that yields events back to back', () => {
  it.each<[string, () => Promise<unknown>]>([
    ['iterated', () => collect(flood.stream('x'))],
    ['pushed (invoke)', () => flood.invoke('x')],
    ['run as a task', () => createTaskRunner({ agent: flood }).submitAndWait('x')],
    ['hand-written, read through pacedEvents', () => collect(pacedEvents(handFlood.stream('x')))],
    [
      'hand-written, run as a task',
      () => createTaskRunner({ agent: handFlood }).submitAndWait('x'),
    ],
  ])('gives the event loop a turn every few milliseconds: %s', async (_, run) => {
    const { fired, longest } = await timersDuring(run);
    expect(fired).toBeGreaterThan(1);
    expect(longest).toBeLessThan(50);
  });

  it('passes every event on, in order, iterated or pushed', async () => {
    const iterated = await collect(flood.stream('x'));
    expect(iterated).toHaveLength(EVENTS + 1);
    expect(iterated.slice(0, -1).every((event) => event.type === 'text-delta')).toBe(true);
    expect(iterated.at(-1)).toEqual({ type: 'done', output: 'x'.repeat(EVENTS) });
    expect(await flood.invoke('x')).toBe('x'.repeat(EVENTS));
    expect(await collect(pacedEvents(handFlood.stream('x')))).toEqual(
      await collect(handFlood.stream('x')),
    );
  });

  it('ends canceled when its signal aborts while it waits for its turn, asking the run for nothing more', async () => {
    let yielded = 0;
    const counting = defineAgent({
      name: 'counting',
      async *run() {
        for (;;) {
          yielded += 1;
          yield { type: 'text-delta', delta: 'x' };
        }
      },
    });
    const controller = new AbortController();
    // A timer fires only while the run waits for a turn of the event loop.
    setTimeout(() => controller.abort(), 0);
    const events = await collect(counting.stream('x', { signal: controller.signal }));
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'canceled' });
    const atEnd = yielded;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(yielded).toBe(atEnd);
  });
});

describe('an ordinary stream', () => {
  it('yields what it yielded before, reading no clock and waiting for no turn', async () => {
    const now = vi.spyOn(performance, 'now');
    const immediate = vi.spyOn(globalThis, 'setImmediate');
    const echo = createEchoAgent();
    expect(await collect(echo.stream('a b  c'))).toEqual([
      { type: 'text-delta', delta: 'a' },
      { type: 'text-delta', delta: ' b' },
      { type: 'text-delta', delta: '  c' },
      { type: 'done', output: 'a b  c' },
    ]);
    expect(await echo.invoke('a b  c')).toBe('a b  c');
    async function* handWritten(): AsyncGenerator<AgentEvent> {
      yield { type: 'text-delta', delta: 'one' };
      yield { type: 'done', output: 'one' };
    }
    expect(await collect(pacedEvents(handWritten()))).toEqual(await collect(handWritten()));
    expect(now).not.toHaveBeenCalled();
    expect(immediate).not.toHaveBeenCalled();
  });
});

describe('pacedEvents', () => {
  it("returns a core stream as it is (it paces itself) and closes a hand-written one's iterator", async () => {
    const core = flood.stream('x');
    expect(pacedEvents(core)).toBe(core);
    let closed = false;
    const endless: Agent = {
      ...handFlood,
      async *stream() {
        try {
          for (;;) yield { type: 'text-delta', delta: 'x' };
        } finally {
          closed = true;
        }
      },
    };
    for await (const event of pacedEvents(endless.stream('x'))) {
      expect(event).toEqual({ type: 'text-delta', delta: 'x' });
      break;
    }
    expect(closed).toBe(true);
  });
});
