import { fileURLToPath } from 'node:url';
import { assertExportsDocumented } from '@agentport/core/testing';
import { describe, expect, it } from 'vitest';

describe('exports', () => {
  it('documents every name of every public entry point in the README API section', async () => {
    const packageDirectory = fileURLToPath(new URL('..', import.meta.url));
    await expect(assertExportsDocumented(packageDirectory)).resolves.toBeUndefined();
  });
});
