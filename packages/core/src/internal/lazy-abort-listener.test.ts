import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { sleep } from '../abortable.ts';
import { LazyAbortListener } from './lazy-abort-listener.ts';

/** Lets the microtasks and `process.nextTick` callbacks queued now run. */
const afterTicks = () => new Promise((resolve) => setImmediate(resolve));

describe('LazyAbortListener', () => {
  it('never touches the signal when stopped within the microtasks it was made in', async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const onAbort = vi.fn();
    await Promise.resolve().then(async () => {
      const listener = new LazyAbortListener(controller.signal, onAbort);
      await Promise.resolve();
      listener.stop();
    });
    await afterTicks();
    controller.abort();
    expect(add).not.toHaveBeenCalled();
    expect(onAbort).not.toHaveBeenCalled();
  });

  it('calls back once the microtasks have run when the signal aborted before it listened', async () => {
    const controller = new AbortController();
    const onAbort = vi.fn();
    new LazyAbortListener(controller.signal, onAbort);
    controller.abort();
    expect(onAbort).not.toHaveBeenCalled();
    await afterTicks();
    expect(onAbort).toHaveBeenCalledTimes(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('listens once still wanted, calls back on abort, and leaves nothing listening', async () => {
    const controller = new AbortController();
    const onAbort = vi.fn();
    new LazyAbortListener(controller.signal, onAbort);
    await sleep(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    expect(onAbort).toHaveBeenCalledTimes(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('stops listening when stopped after it started, and is not called back then', async () => {
    const controller = new AbortController();
    const onAbort = vi.fn();
    const listener = new LazyAbortListener(controller.signal, onAbort);
    await sleep(1);
    listener.stop();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    controller.abort();
    expect(onAbort).not.toHaveBeenCalled();
  });
});
