import { describe, expect, it } from 'vitest';

describe('runtime', () => {
  it('runs on Node 22 or later', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(major).toBeGreaterThanOrEqual(22);
  });
});
