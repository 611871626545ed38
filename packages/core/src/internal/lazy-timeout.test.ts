import { describe, expect, it, vi } from 'vitest';
import { sleep } from '../abortable.ts';
import { LazyTimeout } from './lazy-timeout.ts';

describe('LazyTimeout', () => {
  it('fires after its time when still on once the microtasks have run', async () => {
    let fired = 0;
    new LazyTimeout(5, () => {
      fired += 1;
    });
    await sleep(1);
    expect(fired).toBe(0);
    await sleep(20);
    expect(fired).toBe(1);
  });

  it('sets no timer at all when cleared within the microtasks it started in', async () => {
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    try {
      let fired = false;
      await Promise.resolve().then(async () => {
        const timeouts = [1, 2, 3].map(
          () =>
            new LazyTimeout(1, () => {
              fired = true;
            }),
        );
        await Promise.resolve();
        for (const timeout of timeouts) timeout.clear();
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(setTimer).not.toHaveBeenCalled();
      expect(fired).toBe(false);
    } finally {
      setTimer.mockRestore();
    }
  });

  it('never fires once cleared after its timer was set', async () => {
    let fired = false;
    const timeout = new LazyTimeout(10, () => {
      fired = true;
    });
    await sleep(1);
    timeout.clear();
    await sleep(20);
    expect(fired).toBe(false);
  });
});
