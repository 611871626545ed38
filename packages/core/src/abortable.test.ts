import { describe, expect, it, vi } from 'vitest';
import { abortableReader, sleep } from './abortable.ts';
import { CancellationError } from './errors/cancellation-error.ts';

async function* numbers(count: number) {
  for (let index = 1; index <= count; index += 1) yield index;
}

describe('abortableReader', () => {
  it('reads every item with one abort listener for the whole run', async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    const reader = abortableReader(numbers(10), controller.signal);
    const seen: number[] = [];
    for (let step = await reader.next(); !step.done; step = await reader.next()) {
      seen.push(step.value);
    }
    reader.dispose();
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(add).toHaveBeenCalledTimes(1);
    expect(remove).toHaveBeenCalledTimes(1);
  });

  it('rejects a pending read with a CancellationError as soon as the signal aborts', async () => {
    const controller = new AbortController();
    const never: AsyncIterator<number> = { next: () => new Promise(() => {}) };
    const reader = abortableReader(never, controller.signal);
    const pending = reader.next();
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(CancellationError);
    await expect(reader.next()).rejects.toBeInstanceOf(CancellationError);
    reader.dispose();
  });

  it('passes on an error of the iterator', async () => {
    const failing: AsyncIterator<number> = { next: () => Promise.reject(new Error('boom')) };
    const reader = abortableReader(failing, new AbortController().signal);
    await expect(reader.next()).rejects.toThrow('boom');
    reader.dispose();
  });
});

describe('sleep', () => {
  it('resolves after the time and stops listening to its signal', async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    await sleep(5, controller.signal);
    expect(add).toHaveBeenCalledTimes(1);
    expect(remove).toHaveBeenCalledWith('abort', add.mock.calls[0]?.[1]);
  });

  it('rejects with a CancellationError as soon as the signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = sleep(60_000, controller.signal);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(CancellationError);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('rejects at once on an aborted signal and sleeps without one', async () => {
    await expect(sleep(10, AbortSignal.abort())).rejects.toBeInstanceOf(CancellationError);
    await expect(sleep(1)).resolves.toBeUndefined();
  });
});
