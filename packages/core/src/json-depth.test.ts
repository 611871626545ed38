import { describe, expect, it } from 'vitest';
import { nestsWithin } from './json-depth.ts';

/** An object `depth` levels deep, itself included. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? { a: value } : [value];
  return value;
}

describe('nestsWithin', () => {
  it('counts objects and arrays, the value itself being 1', () => {
    expect(nestsWithin(nested(3), 3)).toBe(true);
    expect(nestsWithin(nested(4), 3)).toBe(false);
    expect(nestsWithin({ shallow: 1, deep: { a: { b: {} } } }, 3)).toBe(false);
    expect(nestsWithin({ shallow: 1, deep: { a: { b: 2 } } }, 3)).toBe(true);
  });

  it('takes primitives and null as depth 0', () => {
    for (const value of [1, 'x', null, true, undefined]) expect(nestsWithin(value, 0)).toBe(true);
  });

  it('walks values far deeper than the stack allows', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(nestsWithin(deep, 64)).toBe(false);
    expect(nestsWithin(deep, 100_000)).toBe(true);
  });
});
