import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Agent, defineAgent } from '@agentport/core';
import { createEchoAgent } from '@agentport/core/agents';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, validateConfig } from './config.ts';
import { nameFromUrl, resolveAgents } from './resolve-agents.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./e2e/fixtures/${name}`, import.meta.url));

describe('validateConfig', () => {
  it('accepts the empty config (the embedded default)', () => {
    expect(validateConfig({})).toEqual({});
  });

  it('accepts origins, a base URL with a path, and the longest timer Node keeps', () => {
    const config = {
      cors: ['https://app.example.com', 'http://127.0.0.1:3000'],
      publicUrl: 'https://agents.example.com/gw/',
      shutdownTimeoutMs: 2_147_483_647,
      requestTimeoutMs: 0,
      keepAliveTimeoutMs: 0,
      rejoinGraceMs: 0,
      requireRemotes: true,
      store: {
        postgres: {
          url: 'postgres://agentport@db.internal:5432/agents',
          schema: 'gw_1',
          leaseMs: 5000,
        },
      },
    };
    expect(validateConfig(config)).toEqual(config);
  });

  it.each([
    [{ port: 'eighty' }, /^Invalid config: port: /],
    [{ port: 70_000 }, /^Invalid config: port: /],
    [{ agents: [{ name: 'fake' }] }, /^Invalid config: agents\.0: must be an agent/],
    [{ remotes: [{ url: 'not a url' }] }, /^Invalid config: remotes\.0\.url: /],
    [{ remotes: [{ url: 'http://x.test', kind: 'grpc' }] }, /^Invalid config: remotes\.0\.kind: /],
    [
      { remotes: [{ url: 'http://x.test', idleTimeoutMs: 0 }] },
      /^Invalid config: remotes\.0\.idleTimeoutMs: /,
    ],
    [
      { remotes: [{ url: 'http://x.test', kind: 'a2a-sdk', idleTimeoutMs: 5000 }] },
      /^Invalid config: remotes\.0\.idleTimeoutMs: applies to a2a-http remotes only/,
    ],
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
    [{ store: { postgres: { url: 'mysql://x/db' } } }, /^Invalid config: store\.postgres\.url: /],
    [
      { store: { postgres: { url: 'postgres://x/db', schema: 'Drop Table' } } },
      /^Invalid config: store\.postgres\.schema: must be a lower-case SQL name/,
    ],
    [{ store: { redis: {} } }, /^Invalid config: store/],
    [
      { store: { postgres: { url: 'postgres://x/db', leaseMS: 2_000 } } },
      /^Invalid config: store\.postgres: Unrecognized key: "leaseMS"/,
    ],
    [{ requireRemotes: 'yes' }, /^Invalid config: requireRemotes: /],
    [{ colour: 'blue' }, /^Invalid config: \(root\): .*colour/],
    // Node would fire a longer timer after 1 ms: shutdown would cut every request at once.
    [{ shutdownTimeoutMs: 3_000_000_000 }, /^Invalid config: shutdownTimeoutMs: must be at most/],
    [{ requestTimeoutMs: 3_000_000_000 }, /^Invalid config: requestTimeoutMs: must be at most/],
    [{ requestTimeoutMs: -1 }, /^Invalid config: requestTimeoutMs: /],
    [{ requestTimeoutMs: 1.5 }, /^Invalid config: requestTimeoutMs: /],
    [{ keepAliveTimeoutMs: 3_000_000_000 }, /^Invalid config: keepAliveTimeoutMs: must be at/],
    [{ keepAliveTimeoutMs: -1 }, /^Invalid config: keepAliveTimeoutMs: /],
    [{ rejoinGraceMs: -1 }, /^Invalid config: rejoinGraceMs: /],
    [{ rejoinGraceMs: 1.5 }, /^Invalid config: rejoinGraceMs: /],
    [
      { publicUrl: 'https://x.example.com/base?q=1' },
      /^Invalid config: publicUrl: must not have a query or a fragment/,
    ],
    [{ publicUrl: 'https://x.example.com/#top' }, /^Invalid config: publicUrl: must not have/],
    [{ publicUrl: 'not a url' }, /^Invalid config: publicUrl: Invalid URL$/],
    [
      { publicUrl: 'https://user:secret@x.example.com/gw' },
      /^Invalid config: publicUrl: must not hold a user name or password/,
    ],
    [
      { remotes: [{ url: 'https://me:hunter2@x.test/a2a/echo' }] },
      /^Invalid config: remotes\.0\.url: must not hold a user name or password \(give apiKey instead\)$/,
    ],
    [
      { remotes: [{ url: 'http://x.test', apiKey: 'remote-key-0123456789\n' }] },
      /^Invalid config: remotes\.0\.apiKey: must be visible ASCII characters without spaces/,
    ],
    [{ cors: ['not a url'] }, /^Invalid config: cors\.0: must be an origin/],
    [{ cors: ['https://app.example.com/'] }, /^Invalid config: cors\.0: must be an origin/],
    [{ cors: ['*'] }, /^Invalid config: cors\.0: .*cors: true/],
    [
      { remotes: [{ url: 'http://x.test', name: 'bad name!' }] },
      /^Invalid config: remotes\.0\.name: must be 1 to 64 lower-case letters/,
    ],
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

  it('finds agentport.config.ts, .mts, .js or .mjs in the working folder, in that order', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'agentport-config-'));
    const cwd = process.cwd();
    try {
      process.chdir(folder);
      await writeFile('agentport.config.mjs', 'export default { port: 9001 };\n');
      await expect(loadConfig()).resolves.toEqual({ port: 9001 });
      await writeFile('agentport.config.js', 'export default { port: 9002 };\n');
      await writeFile('package.json', '{"type":"module"}\n');
      await expect(loadConfig()).resolves.toEqual({ port: 9002 });
      await writeFile('agentport.config.ts', 'export default { port: 9003 as number };\n');
      await expect(loadConfig()).resolves.toEqual({ port: 9003 });
    } finally {
      process.chdir(cwd);
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('reads a named file relative to the current folder, whatever INIT_CWD a script left', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'agentport-config-'));
    const cwd = process.cwd();
    const initCwd = process.env.INIT_CWD;
    try {
      process.chdir(folder);
      process.env.INIT_CWD = tmpdir();
      await writeFile('deploy.config.mjs', 'export default { port: 9004 };\n');
      await expect(loadConfig('deploy.config.mjs')).resolves.toEqual({ port: 9004 });
    } finally {
      process.chdir(cwd);
      if (initCwd === undefined) delete process.env.INIT_CWD;
      else process.env.INIT_CWD = initCwd;
      await rm(folder, { recursive: true, force: true });
    }
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
    expect(agents.map((agent) => agent.name)).toEqual(['assistant', 'echo', 'ticker', 'booking']);
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

  it('gives an a2a-http remote its idleTimeoutMs: a silent events stream is left for long-polling', async () => {
    // A remote whose events stream sends the running task, then nothing, not even a heartbeat.
    const task = {
      id: 't1',
      agentName: 'quiet',
      status: 'working',
      input: 'x',
      output: 'so far',
      metadata: {},
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    const silent: ServerResponse[] = [];
    const remote = createServer((request, response) => {
      request.resume();
      const json = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      const path = new URL(request.url ?? '/', 'http://remote').pathname;
      if (path === '/.well-known/agent.json') {
        json(200, { name: 'quiet', endpoint: 'http://remote', capabilities: { streaming: true } });
      } else if (path === '/tasks' && request.method === 'POST') {
        json(201, { task });
      } else if (path === '/tasks/t1/events') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(`event: task\ndata: ${JSON.stringify({ task })}\n\n`);
        silent.push(response);
      } else if (path === '/tasks/t1') {
        json(200, { task: { ...task, status: 'completed', output: 'so far, done' } });
      } else {
        json(404, { error: { code: 'not_found', message: 'no' } });
      }
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
      const { agents } = await resolveAgents({
        builtins: false,
        remotes: [{ url, kind: 'a2a-http', idleTimeoutMs: 100 }],
      });
      const events = [];
      for await (const event of (agents[0] as Agent).stream('x')) events.push(event);
      expect(events.at(-1)).toEqual({ type: 'done', output: 'so far, done' });
      expect(silent.every((response) => response.destroyed)).toBe(true);
    } finally {
      remote.closeAllConnections();
      await new Promise((resolve) => remote.close(resolve));
    }
  });

  it("names the remote whose card's name is taken, and how to rename it", async () => {
    const remote = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ name: 'echo', endpoint: 'http://remote', capabilities: {} }));
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
      await expect(resolveAgents({ remotes: [{ url, kind: 'a2a-http' }] })).rejects.toThrow(
        /^remotes\.0: An agent named 'echo' is already registered .*'name'/,
      );
    } finally {
      remote.closeAllConnections();
      await new Promise((resolve) => remote.close(resolve));
    }
  });

  it('defers a remote it cannot reach, on request: named as configured, or after its URL', async () => {
    const down = 'http://127.0.0.1:9';
    const { agents, defaultAgent, unavailableRemotes } = await resolveAgents(
      {
        builtins: false,
        remotes: [
          { url: `${down}/agents/echo?token=t`, kind: 'a2a-http' },
          { url: `${down}/a2a/far`, kind: 'a2a-sdk', name: 'named' },
        ],
      },
      { unreachable: 'defer' },
    );
    expect(agents).toEqual([]);
    // The first served name, as for agents that answer.
    expect(defaultAgent).toBe('echo');
    expect(
      unavailableRemotes.map(({ name, url, nameFromUrl: derived }) => [name, url, derived]),
    ).toEqual([
      ['echo', `${down}/agents/echo?token=t`, true],
      ['named', `${down}/a2a/far`, false],
    ]);
    expect(unavailableRemotes[0]?.lastError).toMatch(/cannot reach .*ECONNREFUSED/);
    // Its URL-derived name must not be taken.
    await expect(
      resolveAgents(
        { remotes: [{ url: `${down}/agents/echo`, kind: 'a2a-http' }] },
        { unreachable: 'defer' },
      ),
    ).rejects.toThrow(/^remotes\.0: An agent named 'echo' is already registered .*'name'/);
    // An unknown default is still refused, an unavailable one is not.
    await expect(
      resolveAgents(
        { defaultAgent: 'named', remotes: [{ url: down, kind: 'a2a-sdk', name: 'named' }] },
        { unreachable: 'defer' },
      ),
    ).resolves.toMatchObject({ defaultAgent: 'named' });
  });

  it.each([
    ['http://host.test/agents/echo', 'echo'],
    ['http://host.test/agents/echo/', 'echo'],
    ['http://host.test/a2a/far/.well-known/agent-card.json', 'far'],
    ['http://host.test/agents/Big%20One/.well-known/agent.json', 'big-20one'],
    ['http://host.test/cards/helper.json', 'cards'],
    ['https://sdk-host.example.com:9000/.well-known/agent-card.json', 'sdk-host'],
    ['http://10.0.0.5:8080/', 'remote-agent'],
    ['http://[::1]:8080', 'remote-agent'],
  ])('derives a name from the URL %s: %s', (url, name) => {
    expect(nameFromUrl(url)).toBe(name);
  });

  it('names the remote it cannot use, and why', async () => {
    await expect(
      resolveAgents({ remotes: [{ url: 'http://127.0.0.1:9/x', kind: 'a2a-http' }] }),
    ).rejects.toThrow(/^remotes\.0: cannot use http:\/\/127\.0\.0\.1:9\/x: .*ECONNREFUSED/);
    // A remote that answers, with no card: said as it is, not as unreachable.
    const remote = createServer((request, response) => {
      request.resume();
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{}');
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
      const refused = resolveAgents({ remotes: [{ url, kind: 'a2a-sdk' }] });
      await expect(refused).rejects.toThrow(new RegExp(`^remotes\\.0: cannot use ${url}: `));
      await expect(refused).rejects.not.toThrow(/cannot reach/);
    } finally {
      remote.closeAllConnections();
      await new Promise((resolve) => remote.close(resolve));
    }
  });
});
