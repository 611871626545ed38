import { describe, expect, it } from 'vitest';
import { jsonWeight } from './json-weight.ts';

describe('jsonWeight', () => {
  it('counts strings by their characters and containers by their entries', () => {
    expect(jsonWeight('abcd')).toBe(jsonWeight('') + 8);
    expect(jsonWeight([1, 2, 3])).toBeGreaterThan(jsonWeight([1]));
    expect(jsonWeight({ longer_key: 1 })).toBeGreaterThan(jsonWeight({ k: 1 }));
    expect(jsonWeight(new Uint8Array(1000))).toBeGreaterThanOrEqual(1000);
  });

  it('weighs many small containers far above their JSON length, at any depth', () => {
    const arrays = { m: Array.from({ length: 10_000 }, () => []) };
    expect(jsonWeight(arrays)).toBeGreaterThan(10 * JSON.stringify(arrays).length);
    let deep: unknown = 'leaf';
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(jsonWeight(deep)).toBeGreaterThan(100_000 * 56);
  });
});
