import { describe, expect, it, vi } from 'vitest';
import { randomUuid } from './random-uuid.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('randomUuid', () => {
  it('draws version 4 UUIDs, all different, across refills of its random pool', () => {
    const ids = Array.from({ length: 2000 }, () => randomUuid());
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('spreads its random positions over every hex digit and sets the variant bits', () => {
    const ids = Array.from({ length: 4000 }, () => randomUuid());
    for (const position of [0, 9, 15, 20, 35]) {
      expect(new Set(ids.map((id) => id[position])).size).toBe(16);
    }
    // The variant digit takes its four values.
    expect(new Set(ids.map((id) => id[19]))).toEqual(new Set(['8', '9', 'a', 'b']));
  });

  it('draws the random bytes of thousands of ids at once', () => {
    // A draw costs tens of microseconds with cold caches, whatever its size.
    const draw = vi.spyOn(globalThis.crypto, 'getRandomValues');
    try {
      for (let index = 0; index < 10_000; index += 1) randomUuid();
      expect(draw.mock.calls.length).toBeLessThanOrEqual(3);
      for (const [bytes] of draw.mock.calls) expect((bytes as Uint8Array).byteLength).toBe(65_536);
    } finally {
      draw.mockRestore();
    }
  });
});
