import { describe, expect, it } from 'vitest';
import { describeSteal, parseCpuTicks } from './environment.ts';

const STAT_BEFORE = [
  'cpu  300 0 100 1000 0 0 0 60 0 0',
  'cpu0 200 0 50 400 0 0 0 50 7 0',
  'cpu1 100 0 50 600 0 0 0 10 0 0',
  'intr 12345',
].join('\n');
const STAT_AFTER = [
  'cpu  600 0 200 1400 0 0 0 120 0 0',
  'cpu0 400 0 100 500 0 0 0 100 9 0',
  'cpu1 200 0 100 940 0 0 0 20 0 0',
].join('\n');

describe('host steal', () => {
  it('reads each CPU’s ticks, leaving out the summed line and guest time', () => {
    const ticks = parseCpuTicks(STAT_BEFORE);
    expect([...ticks.keys()]).toEqual(['cpu0', 'cpu1']);
    expect(ticks.get('cpu0')).toEqual({ total: 700, steal: 50 });
  });

  it('gives each CPU’s stolen share of the time between two readings', () => {
    // cpu0: 50 of 400 ticks stolen; cpu1: 10 of 500.
    expect(describeSteal(parseCpuTicks(STAT_BEFORE), parseCpuTicks(STAT_AFTER))).toBe(
      'CPU 0 12.5%, CPU 1 2.0%',
    );
  });

  it('is empty without readings', () => {
    expect(describeSteal(undefined, parseCpuTicks(STAT_AFTER))).toBe('');
  });
});
