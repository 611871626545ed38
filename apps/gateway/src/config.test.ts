import { fileURLToPath } from 'node:url';
import { createEchoAgent } from '@agentport/core/agents';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, validateConfig } from './config.ts';
import { resolveAgents } from './resolve-agents.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./e2e/fixtures/${name}`, import.meta.url));

describe('validateConfig', () => {
  it('accepts the empty config (the embedded default)', () => {
    expect(validateConfig({})).toEqual({});
  });

  it.each([
    [{ port: 'eighty' }, /^Invalid config: port: /],
    [{ port: 70_000 }, /^Invalid config: port: /],
    [{ agents: [{ name: 'fake' }] }, /^Invalid config: agents\.0: must be an agent/],
    [{ remotes: [{ url: 'not a url' }] }, /^Invalid config: remotes\.0\.url: /],
    [{ remotes: [{ url: 'http://x.test', kind: 'grpc' }] }, /^Invalid config: remotes\.0\.kind: /],
    [
      { apiKeys: ['short'] },
      /^Invalid config: apiKeys\.0: API keys must be at least 16 characters/,
    ],
    [{ a2aReplyWith: 'status' }, /^Invalid config: a2aReplyWith: /],
    [{ colour: 'blue' }, /^Invalid config: \(root\): .*colour/],
  ])('names the field of %j', (config, message) => {
    expect(() => validateConfig(config)).toThrow(message);
  });
});

describe('loadConfig', () => {
  it('loads the default export of a config module', async () => {
    const config = await loadConfig(fixture('custom.config.ts'));
    expect(config.defaultAgent).toBe('shout');
    expect(config.agents?.map((agent) => agent.name)).toEqual(['shout']);
  });

  it('falls back to the embedded default when there is no agentport.config.ts', async () => {
    await expect(loadConfig()).resolves.toEqual({});
  });

  it('refuses a missing or invalid file with a ConfigError', async () => {
    await expect(loadConfig('nope.config.ts')).rejects.toThrow(ConfigError);
    await expect(loadConfig(fixture('invalid.config.ts'))).rejects.toThrow(/port/);
  });
});

describe('resolveAgents', () => {
  it('serves the built-ins with assistant as the default', async () => {
    const { agents, defaultAgent } = await resolveAgents({});
    expect(agents.map((agent) => agent.name)).toEqual(['assistant', 'echo', 'ticker']);
    expect(defaultAgent).toBe('assistant');
  });

  it('refuses duplicate names and an unknown default', async () => {
    await expect(resolveAgents({ agents: [createEchoAgent()] })).rejects.toThrow(/echo/);
    await expect(resolveAgents({ defaultAgent: 'ghost' })).rejects.toThrow(/defaultAgent/);
    await expect(resolveAgents({ builtins: false })).rejects.toThrow(/no agent/);
  });

  it('names the remote it cannot reach', async () => {
    await expect(
      resolveAgents({ remotes: [{ url: 'http://127.0.0.1:9/x', kind: 'a2a-http' }] }),
    ).rejects.toThrow(/^remotes\.0: cannot reach http:\/\/127\.0\.0\.1:9\/x/);
  });
});
