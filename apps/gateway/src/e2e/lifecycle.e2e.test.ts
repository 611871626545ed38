import { connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { listen } from '@agentport/http/node';
import { describe, expect, it } from 'vitest';
import { createBuiltinAgents } from '../builtin-agents.ts';
import { createGateway } from '../gateway.ts';
import { gatewayProcesses, withConfigFile } from '../testing/gateway-process.ts';
import { completed } from '../testing/invoke-answer.ts';
import { readEvents } from '../testing/sse.ts';

// A gateway started from a config module: its agents, keys, limits and log.
const CUSTOM = fileURLToPath(new URL('./fixtures/custom.config.ts', import.meta.url));
const CONSOLE = fileURLToPath(new URL('./fixtures/console.config.ts', import.meta.url));
const IMPATIENT = fileURLToPath(new URL('./fixtures/impatient.config.ts', import.meta.url));
const KEY = 'e2e-key-0123456789abcdef';
const json = { 'content-type': 'application/json' };

const start = gatewayProcesses();

describe('console output', () => {
  it("goes into the JSON log, one line each, so a caller's text forges no line", async () => {
    const gateway = await start(['--config', CONSOLE], { LOG_LEVEL: 'info' });
    const forged = 'x\n{"level":30,"msg":"request","path":"/admin"}';
    const response = await fetch(`${gateway.url}/agents/chatty/invoke`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: forged }),
    });
    expect(await response.json()).toEqual(completed('ok'));
    expect(await gateway.stop()).toBe(0);
    const lines = gateway.output().split('\n');
    const logged = lines.slice(lines.findIndex((line) => line.startsWith('{')));
    const entries = logged.filter((line) => line !== '').map((line) => JSON.parse(line));
    expect(entries).toContainEqual(
      expect.objectContaining({
        level: 40,
        source: 'console',
        msg: `Reference task ${forged} not found.`,
      }),
    );
    expect(entries.filter((entry) => entry.path === '/admin')).toEqual([]);
    expect(gateway.errors()).toBe('');
  });
});

/** Sends the head of a request and part of its body, then resolves with all the answer. */
/** Sends raw bytes on a new connection and resolves with all the gateway wrote until it closed. */
function sendRaw(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(Number(port), hostname, () => socket.write(text));
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** A request whose body never arrives whole. */
function sendPartly(url: string, path: string): Promise<string> {
  return sendRaw(
    url,
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{"in`,
  );
}

describe('configured gateway', () => {
  it('closes a kept-alive connection idle past keepAliveTimeoutMs, which it advertises', async () => {
    const gateway = await start(['--config', IMPATIENT]);
    const body = JSON.stringify({ input: 'hi' });
    const began = performance.now();
    const answer = await sendRaw(
      gateway.url,
      `POST /agents/echo/invoke HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    const elapsed = performance.now() - began;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/\r\nKeep-Alive: timeout=1\r\n/i);
    expect(answer).toMatch(/\{"result":"hi","contextId":"[^"]+","status":"completed"\}$/);
    // Closed ~1.2 s after the answer (1 s, its 0.2 s margin, sweeps of 20 ms), not at Node's 6 s.
    expect(elapsed).toBeGreaterThanOrEqual(1_000);
    expect(elapsed).toBeLessThan(3_000);
    expect(await gateway.stop()).toBe(0);
  });

  it('answers a request still arriving after requestTimeoutMs with a 408, on every path', async () => {
    const gateway = await start(['--config', IMPATIENT], { LOG_LEVEL: 'info' });
    const began = performance.now();
    // The Node fast path (an invoke) and the app's (a compat run).
    const answers = await Promise.all([
      sendPartly(gateway.url, '/agents/echo/invoke'),
      sendPartly(gateway.url, '/compat/runs'),
    ]);
    expect(performance.now() - began).toBeLessThan(3_000);
    for (const answer of answers) {
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(answer.slice(answer.indexOf('{')))).toMatchObject({
        error: { code: 'request_timeout' },
      });
    }
    expect(await gateway.stop()).toBe(0);
    // A timed-out request is not an error of the server's.
    const entries = gateway
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    expect(entries.filter((entry) => entry.level >= 50)).toEqual([]);
    // Logged as answered (408), not as callers who left (499).
    expect(
      entries
        .filter((entry) => entry.msg === 'request')
        .map((entry) => [entry.path, entry.status])
        .sort(),
    ).toEqual([
      ['/agents/echo/invoke', 408],
      ['/compat/runs', 408],
    ]);
    expect(gateway.errors()).toBe('');
  });

  it('serves agents from a config module, requires its API key and advertises it', async () => {
    const gateway = await start(['--config', CUSTOM], { TEST_API_KEY: KEY });
    const refused = await fetch(`${gateway.url}/agents/shout/invoke`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: 'hi' }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('Bearer');
    const answered = await fetch(`${gateway.url}/agents/shout/invoke`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ input: 'hi' }),
    });
    expect(await answered.json()).toEqual(completed('HI'));
    const card = await fetch(`${gateway.url}/.well-known/agent.json`);
    expect(await card.json()).toMatchObject({
      name: 'shout',
      securitySchemes: { bearer: { scheme: 'bearer' } },
    });
    const sdkCard = await fetch(`${gateway.url}/.well-known/agent-card.json`, {
      headers: { 'a2a-version': '1.0' },
    });
    expect(await sdkCard.json()).toMatchObject({
      name: 'shout',
      securitySchemes: {
        bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
        apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
      },
      securityRequirements: [{ schemes: { bearer: {} } }, { schemes: { apiKey: {} } }],
    });
  });

  it('serves remote agents configured by URL (another gateway) as if they were local', async () => {
    const remote = await start();
    const gateway = await start(['--config', CUSTOM], {
      REMOTE_HTTP_URL: `${remote.url}/agents/echo`,
      REMOTE_SDK_URL: `${remote.url}/a2a/ticker`,
    });
    const index = (await (await fetch(`${gateway.url}/`)).json()) as {
      agents: Array<{ name: string }>;
    };
    expect(index.agents.map((agent) => agent.name)).toEqual([
      'assistant',
      'echo',
      'ticker',
      'booking',
      'shout',
      'remote-echo',
      'remote-ticker',
    ]);
    const invoked = await fetch(`${gateway.url}/agents/remote-echo/invoke`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: 'through two gateways' }),
    });
    expect(await invoked.json()).toEqual(completed('through two gateways'));
    const streamed = await fetch(`${gateway.url}/agents/remote-ticker/stream`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: '3 every 50ms' }),
    });
    const events = await readEvents(streamed);
    expect(JSON.parse(events.at(-1)?.data ?? '')).toEqual({ output: 'tick 1\ntick 2\ntick 3' });
    const run = await fetch(`${gateway.url}/compat/runs`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ agent_name: 'remote-echo', input: 'compat too' }),
    });
    expect(await run.json()).toMatchObject({ output: 'compat too', agent: 'remote-echo' });
  });

  it('starts with a remote agent it cannot reach, answers 503 for it, and serves it once it can', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    const source = `export default { remotes: [{ url: 'http://127.0.0.1:${port}/agents/echo', name: 'later' }] };\n`;
    await withConfigFile(source, async (config) => {
      const gateway = await start(['--config', config], { LOG_LEVEL: 'info' });
      expect(gateway.output()).toMatch(
        /agents +assistant, echo, ticker, booking, later \(unavailable\)/,
      );
      const degraded = await fetch(`${gateway.url}/readyz`);
      expect(degraded.status).toBe(200);
      expect(await degraded.json()).toMatchObject({
        status: 'degraded',
        unavailable: [{ name: 'later', url: `http://127.0.0.1:${port}/agents/echo` }],
      });
      const invoke = () =>
        fetch(`${gateway.url}/agents/later/invoke`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ input: 'at last' }),
        });
      const refused = await invoke();
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
        'remote_unavailable',
      );

      // The remote comes up: a retry (1 s, then 2 s, with jitter) finds it.
      const upstream = new AbortController();
      const remote = createGateway({
        agents: createBuiltinAgents(),
        defaultAgent: 'assistant',
        publicUrl: `http://127.0.0.1:${port}`,
      });
      const served = listen(remote.app, { port, signal: upstream.signal });
      try {
        const deadline = Date.now() + 10_000;
        while (
          ((await (await fetch(`${gateway.url}/readyz`)).json()) as { status: string }).status !==
          'ready'
        ) {
          expect(Date.now()).toBeLessThan(deadline);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(await (await invoke()).json()).toEqual(completed('at last'));
      } finally {
        await remote.shutdown();
        upstream.abort();
        await served;
      }
      expect(await gateway.stop()).toBe(0);
      const entries = gateway
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(entries).toContainEqual(
        expect.objectContaining({
          level: 40,
          agent: 'later',
          msg: expect.stringMatching(/unavailable at start/),
        }),
      );
      expect(entries).toContainEqual(
        expect.objectContaining({ level: 30, agent: 'later', msg: 'remote agent available' }),
      );
    });
  });
});
