import { InvalidInputError } from '@agentport/core';
import { describe, expect, it } from 'vitest';
import { checkMaxConcurrency, RunSlots } from './run-slots.ts';

const never = new AbortController().signal;

describe('RunSlots', () => {
  it('gives free slots at once and refuses one more', () => {
    const slots = new RunSlots(2);
    expect([slots.tryAcquire(), slots.tryAcquire(), slots.tryAcquire()]).toEqual([
      true,
      true,
      false,
    ]);
    slots.release();
    expect(slots.active).toBe(1);
    expect(slots.tryAcquire()).toBe(true);
  });

  it('hands a freed slot to the longest waiting run, before any newcomer', async () => {
    const slots = new RunSlots(1);
    slots.tryAcquire();
    const order: string[] = [];
    const first = slots.acquire(never).then((granted) => order.push(`first ${granted}`));
    const second = slots.acquire(never).then((granted) => order.push(`second ${granted}`));
    expect(slots.waiting).toBe(2);
    slots.release();
    // The slot went to the first waiter: a newcomer finds none free.
    expect(slots.tryAcquire()).toBe(false);
    await first;
    expect(order).toEqual(['first true']);
    slots.release();
    await second;
    expect(order).toEqual(['first true', 'second true']);
    slots.release();
    expect([slots.active, slots.waiting]).toEqual([0, 0]);
  });

  it('takes a run whose signal aborts out of the queue, holding nothing', async () => {
    const slots = new RunSlots(1);
    slots.tryAcquire();
    const controller = new AbortController();
    const leaving = slots.acquire(controller.signal);
    const staying = slots.acquire(never);
    controller.abort();
    expect(await leaving).toBe(false);
    expect(slots.waiting).toBe(1);
    slots.release();
    expect(await staying).toBe(true);
    expect(slots.active).toBe(1);
    expect(await slots.acquire(AbortSignal.abort())).toBe(false);
  });

  it('passes the slot on when its run aborts between getting it and starting', async () => {
    const slots = new RunSlots(1);
    slots.tryAcquire();
    const controller = new AbortController();
    const aborted = slots.acquire(controller.signal);
    const next = slots.acquire(never);
    slots.release();
    controller.abort();
    expect(await aborted).toBe(false);
    expect(await next).toBe(true);
    expect([slots.active, slots.waiting]).toEqual([1, 0]);
  });

  it('refuses a limit that is not an integer of at least 1', () => {
    for (const limit of [0, -3, 2.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new RunSlots(limit)).toThrow(InvalidInputError);
      expect(() => checkMaxConcurrency(limit)).toThrow(
        `maxConcurrency must be an integer of at least 1, got ${limit}`,
      );
    }
    expect(checkMaxConcurrency(1)).toBe(1);
  });
});
