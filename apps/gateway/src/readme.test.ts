import { readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { runReadmeExample } from '@agentport/core/testing';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

const ROOT_README = fileURLToPath(new URL('../../../README.md', import.meta.url));
const CONFIG_FILE = fileURLToPath(new URL('../.readme-example.ts', import.meta.url));

describe('the repository README', () => {
  it('has a config example the gateway loads as it says', async () => {
    const readme = await readFile(ROOT_README, 'utf8');
    const example = /## Configuring agents[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    await writeFile(CONFIG_FILE, example as string);
    try {
      const config = await loadConfig(CONFIG_FILE);
      expect(config.defaultAgent).toBe('shout');
      expect(config.agents?.map((agent) => agent.name)).toEqual(['shout']);
      await expect(config.agents?.[0]?.invoke('hi')).resolves.toBe('HI');
      expect(config.remotes?.map((remote) => remote.kind)).toEqual(['a2a-http', 'a2a-sdk']);
    } finally {
      await rm(CONFIG_FILE, { force: true });
    }
  });

  it('starts with the two commands that set up a fresh machine', async () => {
    const [title, start, test] = (await readFile(ROOT_README, 'utf8')).split('\n').filter(Boolean);
    expect(title).toBe('# AgentPort');
    expect(start).toMatch(/^- Start the gateway: `.*pnpm install && pnpm start`$/);
    expect(test).toBe('- Run the tests: `bash scripts/install-test-deps.sh && pnpm test`');
    const ci = await readFile(fileURLToPath(new URL('../../../.ci/run', import.meta.url)), 'utf8');
    expect(ci).toContain('bash scripts/install-test-deps.sh && pnpm test');
  });
});

describe("the gateway's README", () => {
  it('runs its usage example and prints what it says', async () => {
    const { stdout, expected } = await runReadmeExample(
      fileURLToPath(new URL('..', import.meta.url)),
    );
    expect(stdout).toBe(expected);
  });
});
