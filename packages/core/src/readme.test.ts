import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from './testing/readme-example.ts';

describe('README', () => {
  it('runs its usage example and prints what it says', async () => {
    const { stdout, expected } = await runReadmeExample(
      fileURLToPath(new URL('..', import.meta.url)),
    );
    expect(stdout).toBe(expected);
  });
});
