import { describe, expect, it } from 'vitest';
import { CancellationError } from '../errors/cancellation-error.ts';
import { RunSlots } from './run-slots.ts';

/** Slots whose runs end only when the test says so. */
function slotsOf(maxConcurrency: number) {
  const started: string[] = [];
  const controllers = new Map<string, AbortController>();
  const ends = new Map<string, () => void>();
  const slots = new RunSlots(maxConcurrency, (id, controller, running) => {
    started.push(id);
    controllers.set(id, controller);
    return new Promise<void>((resolve) => {
      ends.set(id, () => {
        running.finished(id, controller);
        resolve();
      });
    });
  });
  return { slots, started, controllers, end: (id: string) => ends.get(id)?.() };
}

describe('RunSlots', () => {
  it('runs at most maxConcurrency tasks, starting the next as one finishes', () => {
    const { slots, started, end } = slotsOf(2);
    for (const id of ['a', 'b', 'c']) slots.start(id);
    expect(started).toEqual(['a', 'b']);
    end('a');
    expect(started).toEqual(['a', 'b', 'c']);
  });

  it('aborts a canceled run and frees its slot at once, and drops a canceled queued task', () => {
    const { slots, started, controllers, end } = slotsOf(1);
    for (const id of ['a', 'b', 'c']) slots.start(id);
    slots.canceled('b');
    slots.canceled('a');
    expect(controllers.get('a')?.signal.reason).toBeInstanceOf(CancellationError);
    expect(started).toEqual(['a', 'c']);
    // The canceled run ending later frees nothing more.
    end('a');
    slots.start('d');
    expect(started).toEqual(['a', 'c']);
  });

  it("gives a run's slot to the next task once its agent is done, keeping the run until it ends", () => {
    const { slots, started, controllers, end } = slotsOf(1);
    for (const id of ['a', 'b', 'c']) slots.start(id);
    slots.agentDone('a', controllers.get('a') as AbortController);
    expect(started).toEqual(['a', 'b']);
    // Still here until it ends: not started twice, and its end frees nothing more.
    slots.start('a');
    slots.agentDone('a', controllers.get('a') as AbortController);
    expect(started).toEqual(['a', 'b']);
    end('a');
    expect(started).toEqual(['a', 'b']);
    slots.agentDone('b', controllers.get('b') as AbortController);
    slots.canceled('b');
    expect(started).toEqual(['a', 'b', 'c']);
    expect(slots.room()).toBe(0);
    expect(slots.drain()).toEqual(['c']);
  });

  it('drains the queue and releases every run still on', () => {
    const { slots, started, controllers } = slotsOf(1);
    for (const id of ['a', 'b']) slots.start(id);
    expect(slots.drain()).toEqual(['b', 'a']);
    slots.releaseAll();
    expect(controllers.get('a')?.signal.aborted).toBe(true);
    expect(started).toEqual(['a']);
  });

  it('reserves a free slot for a task about to be created, runs it there or gives it back', () => {
    const { slots, started, end } = slotsOf(1);
    expect(slots.reserve()).toBe(true);
    // The reserved slot is taken: nothing else starts, and no second reservation fits.
    expect(slots.reserve()).toBe(false);
    slots.start('queued');
    expect(started).toEqual([]);
    slots.unreserve();
    expect(started).toEqual(['queued']);
    end('queued');
    expect(slots.reserve()).toBe(true);
    slots.runReserved('created');
    expect(started).toEqual(['queued', 'created']);
    expect(slots.room()).toBe(0);
    end('created');
    expect(slots.room()).toBe(1);
  });
});
