import { fileURLToPath } from 'node:url';
import { defineAgent } from '@agentport/core';
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
    [
      { apiKeys: [' key-with-spaces-around '] },
      /^Invalid config: apiKeys\.0: API keys must be visible ASCII characters without spaces/,
    ],
    [{ apiKeys: ['пароль-пароль-пароль'] }, /^Invalid config: apiKeys\.0: .*visible ASCII/],
    [
      { agents: [{ name: 'x', invoke() {}, stream() {} }] },
      /^Invalid config: agents\.0: must be an agent .*tools, handoffs/,
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

  it('awaits a default export that is a promise, and validates what it gives', async () => {
    await expect(loadConfig(fixture('promised.config.ts'))).rejects.toThrow(
      /^Invalid config: port: /,
    );
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

  it('refuses agents the gateway could not serve before anything listens, naming the cause', async () => {
    const named = (name: string) => defineAgent({ name, async *run() {} });
    const helperA = named('helper');
    const helperB = named('helper');
    const twoHelpers = {
      builtins: false,
      agents: [
        defineAgent({ name: 'a', handoffs: [helperA], async *run() {} }),
        defineAgent({ name: 'b', handoffs: [helperB], async *run() {} }),
      ],
    };
    await expect(resolveAgents(twoHelpers)).rejects.toThrow(/^agents: .*helper/);
    await expect(resolveAgents(twoHelpers)).rejects.toThrow(ConfigError);
    const badName = { ...createEchoAgent(), name: 'my agent/x' };
    await expect(resolveAgents({ builtins: false, agents: [badName] })).rejects.toThrow(
      /^agents: .*my agent\/x/,
    );
  });

  it('names the remote it cannot reach', async () => {
    await expect(
      resolveAgents({ remotes: [{ url: 'http://127.0.0.1:9/x', kind: 'a2a-http' }] }),
    ).rejects.toThrow(/^remotes\.0: cannot reach http:\/\/127\.0\.0\.1:9\/x/);
  });
});
