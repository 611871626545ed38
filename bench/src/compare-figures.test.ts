import { describe, expect, it } from 'vitest';
import {
  compareRounds,
  cpuMsOfStat,
  DEFAULT_COMPARE_PATHS,
  parseCompareArgs,
} from './compare-figures.ts';

describe('cpuMsOfStat', () => {
  it('reads utime and stime, also past a command name with spaces and parentheses', () => {
    const fields = Array.from({ length: 50 }, (_, index) => String(index + 3));
    // Fields 14 and 15 of the line (utime 14 and stime 15 ticks here, as the filler counts).
    const stat = `4242 (node (serve) x) S ${fields.slice(1).join(' ')}`;
    expect(cpuMsOfStat(stat, 100)).toBe(((14 + 15) * 1000) / 100);
    expect(cpuMsOfStat(stat, 1000)).toBe(14 + 15);
  });
});

describe('parseCompareArgs', () => {
  it('takes a ref, flags and routes, with defaults', () => {
    expect(parseCompareArgs(['HEAD~2'])).toEqual({
      ref: 'HEAD~2',
      paths: DEFAULT_COMPARE_PATHS,
      rounds: 6,
      seconds: 2,
      pairs: 1,
    });
    expect(
      parseCompareArgs([
        '--rounds',
        '9',
        'main',
        '/agents/echo/invoke',
        '--seconds',
        '3',
        '--pairs',
        '4',
      ]),
    ).toEqual({ ref: 'main', paths: ['/agents/echo/invoke'], rounds: 9, seconds: 3, pairs: 4 });
  });

  it('refuses a missing ref, a bad number and a stray argument', () => {
    expect(() => parseCompareArgs([])).toThrow('name the git ref');
    expect(() => parseCompareArgs(['main', '--rounds', '0'])).toThrow('positive whole number');
    expect(() => parseCompareArgs(['main', '--seconds'])).toThrow('positive whole number');
    expect(() => parseCompareArgs(['main', '--pairs', '1.5'])).toThrow('positive whole number');
    expect(() => parseCompareArgs(['main', 'other'])).toThrow("unexpected argument 'other'");
  });
});

describe('compareRounds', () => {
  it('takes the median of the per-round ratios, which a slow round moves on both sides', () => {
    const run = (cpuUsPerRequest: number, requestsPerSecond = 1000) => ({
      cpuUsPerRequest,
      requestsPerSecond,
    });
    const base = [run(100), run(50), run(200)];
    const head = [run(80), run(40, 2000), run(160, 3000)];
    expect(compareRounds(base, head)).toEqual({
      base: run(100),
      head: run(80, 2000),
      cpuRatio: 0.8,
    });
  });
});
