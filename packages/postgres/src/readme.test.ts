import { fileURLToPath } from 'node:url';
import { runReadmeExample } from '@agentport/core/testing';
import { describe, expect, it } from 'vitest';

describe('README', () => {
  it('runs its usage example and prints what it says', async () => {
    const { stdout, expected } = await runReadmeExample(
      fileURLToPath(new URL('..', import.meta.url)),
    );
    expect(stdout).toBe(expected);
  });
});
