import { type Agent, defineAgent } from '@agentport/core';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { retryDelay, retryRemotes, type UnavailableRemote } from './remote-retries.ts';
import { collectLines } from './testing/log-lines.ts';

const agent = defineAgent({ name: 'far', async *run() {} });

/** A remote whose tries fail `failures` times, then succeed; it records when each try began. */
function flakyRemote(failures: number, overrides: Partial<UnavailableRemote> = {}) {
  const tries: number[] = [];
  const signals: AbortSignal[] = [];
  const remote: UnavailableRemote = {
    name: 'far',
    url: 'http://far.test/agents/far?token=secret-token',
    since: new Date('2026-01-01T00:00:00.000Z'),
    lastError: 'getCard failed: cannot reach http://far.test/agents/far?token=secret-token',
    async connect(signal) {
      tries.push(Date.now());
      signals.push(signal);
      if (tries.length <= failures)
        throw new Error('connect ECONNREFUSED (http://far.test/x?token=t)');
      return agent;
    },
    ...overrides,
  };
  return { remote, tries, signals };
}

function logged() {
  const { lines, destination } = collectLines();
  const logger = pino({ level: 'info' }, destination);
  return {
    logger,
    entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('retryDelay', () => {
  it('doubles from the initial delay up to the maximum, each between half of it and all of it', () => {
    const options = { initialDelayMs: 1000, maxDelayMs: 60_000 };
    expect(
      [0, 1, 2, 5, 6, 20].map((attempt) => retryDelay(attempt, options, () => 0.999_999)),
    ).toEqual([1000, 2000, 4000, 32_000, 60_000, 60_000]);
    expect([0, 1, 6].map((attempt) => retryDelay(attempt, options, () => 0))).toEqual([
      500, 1000, 30_000,
    ]);
    // The defaults: 1 s doubling to 60 s.
    expect(retryDelay(0, {}, () => 0.999_999)).toBe(1000);
    expect(retryDelay(10, {}, () => 0.999_999)).toBe(60_000);
  });
});

describe('retryRemotes', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00.000Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('retries with backoff until the card can be read, then hands the agent over once', async () => {
    const { remote, tries } = flakyRemote(2);
    const available: Agent[] = [];
    const log = logged();
    const retries = retryRemotes([remote], {
      initialDelayMs: 100,
      maxDelayMs: 1000,
      random: () => 0.999_999,
      logger: log.logger,
      onAvailable: (arrived) => available.push(arrived),
    });
    const start = Date.now();
    expect(retries.unavailable('far')?.code).toBe('remote_unavailable');
    expect(retries.unavailable('echo')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(99);
    expect(tries).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(tries.map((at) => at - start)).toEqual([100]);
    await vi.advanceTimersByTimeAsync(200);
    expect(tries.map((at) => at - start)).toEqual([100, 300]);
    expect(available).toEqual([]);
    await vi.advanceTimersByTimeAsync(400);
    expect(tries.map((at) => at - start)).toEqual([100, 300, 700]);
    expect(available).toEqual([agent]);
    expect(retries.unavailable('far')).toBeUndefined();
    expect(retries.statuses()).toEqual([]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(tries).toHaveLength(3);

    const entries = log.entries();
    expect(entries.map(({ level, msg }) => [level, msg])).toEqual([
      [
        40,
        'remote agent unavailable at start: answering 503 remote_unavailable, retrying in the background',
      ],
      [40, 'remote agent still unavailable'],
      [40, 'remote agent still unavailable'],
      [30, 'remote agent available'],
    ]);
    expect(entries[1]).toMatchObject({ agent: 'far', attempts: 1, retryInMs: 200 });
    expect(entries[3]).toMatchObject({ agent: 'far', attempts: 3 });
    // URLs without their query, which may hold a token.
    expect(JSON.stringify(entries)).not.toContain('token');
    expect(entries[0]).toMatchObject({ url: 'http://far.test/agents/far' });
  });

  it('says when it tries next in Retry-After, and lists the remote as readyz shows it', async () => {
    const { remote } = flakyRemote(5);
    const retries = retryRemotes([remote], {
      initialDelayMs: 4000,
      random: () => 0.999_999,
      onAvailable: () => undefined,
    });
    expect(retries.unavailable('far')?.retryAfterSeconds).toBe(4);
    await vi.advanceTimersByTimeAsync(2500);
    expect(retries.unavailable('far')?.retryAfterSeconds).toBe(2);
    expect(retries.statuses()).toEqual([
      {
        name: 'far',
        url: 'http://far.test/agents/far',
        since: '2026-01-01T00:00:00.000Z',
        lastError: 'getCard failed: cannot reach http://far.test/agents/far',
      },
    ]);
    await vi.advanceTimersByTimeAsync(1500);
    expect(retries.statuses()[0]?.lastError).toBe('connect ECONNREFUSED (http://far.test/x)');
    retries.stop();
  });

  it('warns that a remote named after its URL should be given a name', () => {
    const log = logged();
    const retries = retryRemotes([flakyRemote(1, { nameFromUrl: true }).remote], {
      logger: log.logger,
      onAvailable: () => undefined,
    });
    retries.stop();
    expect(log.entries()[0]?.msg).toMatch(/no name: served as 'far' .*give it a name/);
  });

  it('stops retrying on stop, aborting a try in flight and dropping what it brings', async () => {
    let release: (value: Agent) => void = () => undefined;
    const { remote, tries, signals } = flakyRemote(0, {
      connect(signal) {
        tries.push(Date.now());
        signals.push(signal);
        return new Promise((resolve) => {
          release = resolve;
        });
      },
    });
    const available: Agent[] = [];
    const retries = retryRemotes([remote], {
      initialDelayMs: 10,
      onAvailable: (arrived) => available.push(arrived),
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(tries).toHaveLength(1);
    retries.stop();
    expect(signals[0]?.aborted).toBe(true);
    release(agent);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(available).toEqual([]);
    expect(tries).toHaveLength(1);

    const idle = flakyRemote(5);
    retryRemotes([idle.remote], { initialDelayMs: 10, onAvailable: () => undefined }).stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(idle.tries).toEqual([]);
  });

  it('keeps a remote unavailable, and says why, when its agent cannot be served', async () => {
    const log = logged();
    const retries = retryRemotes([flakyRemote(0).remote], {
      initialDelayMs: 10,
      logger: log.logger,
      onAvailable: () => {
        throw new Error('no room for it');
      },
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(retries.statuses()[0]?.lastError).toBe('no room for it');
    expect(log.entries().at(-1)).toMatchObject({ level: 50, msg: 'remote agent cannot be served' });
    retries.stop();
  });
});
