import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { runReadmeExample } from '@agentport/core/testing';
import { describe, expect, it } from 'vitest';
import { HELP } from './command.ts';

const PACKAGE_DIRECTORY = fileURLToPath(new URL('..', import.meta.url));

describe('README', () => {
  it('runs its usage example and prints what it says', async () => {
    const { stdout, expected } = await runReadmeExample(PACKAGE_DIRECTORY);
    expect(stdout).toBe(expected);
  });

  it("shows the command's options as its help does", async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const options = HELP.slice(HELP.indexOf('  directory')).replace(/\n\nOptions:\n/, '\n');
    expect(readme).toContain(options.trimEnd());
  });
});
