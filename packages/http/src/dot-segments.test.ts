import { describe, expect, it } from 'vitest';
import { hasDotSegment } from './dot-segments.ts';

describe('hasDotSegment', () => {
  it('finds . and .. segments, written out or %2e-encoded, and nothing else', () => {
    for (const path of ['/a/../b', '/a/..', '/./a', '/a/.', '/a/%2e%2E/b', '/a/.%2e', '/%2e/a']) {
      expect(hasDotSegment(path), path).toBe(true);
    }
    for (const path of ['/.well-known/agent.json', '/a/.../b', '/a/..b', '/a.', '/a/b', '/%2ea']) {
      expect(hasDotSegment(path), path).toBe(false);
    }
  });
});
