import { describe, expect, it, vi } from 'vitest';
import { linkSignals } from './link-signals.ts';

describe('linkSignals', () => {
  it('aborts with the reason of whichever source aborts first', () => {
    const first = new AbortController();
    const second = new AbortController();
    const linked = linkSignals([first.signal, second.signal]);
    expect(linked.signal.aborted).toBe(false);
    second.abort('second went');
    first.abort('first went');
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe('second went');
    linked.dispose();
  });

  it('is aborted at once when a source already is', () => {
    const linked = linkSignals([new AbortController().signal, AbortSignal.abort('gone')]);
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe('gone');
    linked.dispose();
  });

  it('stops following its sources once disposed', () => {
    const source = new AbortController();
    const remove = vi.spyOn(source.signal, 'removeEventListener');
    const linked = linkSignals([source.signal]);
    linked.dispose();
    source.abort();
    expect(remove).toHaveBeenCalledTimes(1);
    expect(linked.signal.aborted).toBe(false);
  });
});
