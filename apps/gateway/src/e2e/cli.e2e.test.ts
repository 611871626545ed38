import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { gatewayProcesses, withConfigFile } from '../testing/gateway-process.ts';

// The command line: help, agents, call, card, usage errors and exit codes.
const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));
const CUSTOM = fileURLToPath(new URL('./fixtures/custom.config.ts', import.meta.url));
const INVALID = fileURLToPath(new URL('./fixtures/invalid.config.ts', import.meta.url));
const FAILING = fileURLToPath(new URL('./fixtures/failing.config.ts', import.meta.url));
const WAITING = fileURLToPath(new URL('./fixtures/waiting.config.ts', import.meta.url));

const start = gatewayProcesses();

describe('CLI', () => {
  it('prints help', async () => {
    const { stdout } = await run(process.execPath, [CLI, '--help']);
    expect(stdout).toContain('agentport serve');
    expect(stdout).toContain('agentport call <agent> <input>');
  });

  it('prints its version', async () => {
    const { version } = JSON.parse(
      readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8'),
    ) as { version: string };
    for (const flag of ['--version', '-v']) {
      const { stdout } = await run(process.execPath, [CLI, flag]);
      expect(stdout).toBe(`${version}\n`);
    }
  });

  it('tells a Node older than 22.18 what it needs, before loading anything else', async () => {
    const older =
      'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"22.17.0"});' +
      'Object.defineProperty(process,"version",{value:"v22.17.0"})';
    const failed = await run(process.execPath, ['--import', older, CLI, '--help']).catch(
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        'agentport: needs Node.js 22.18 or later, which loads TypeScript configs (this is v22.17.0)\n',
    });
  });

  it('says which config it serves, none found included, and when the cards would name loopback', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'agentport-no-config-'));
    try {
      const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--host', '0.0.0.0'], {
        cwd: folder,
        env: { ...process.env, LOG_LEVEL: 'silent', PUBLIC_URL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      let stdout = '';
      child.stderr.setEncoding('utf8');
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      await new Promise<void>((resolve) => {
        child.stderr.on('data', (chunk: string) => {
          stderr += chunk;
          if (stderr.includes('only this host can reach')) resolve();
        });
      });
      child.kill('SIGKILL');
      expect(stdout).toContain(
        `  config              none (no agentport.config.ts, agentport.config.mts, agentport.config.js, agentport.config.mjs in ${folder})\n`,
      );
      expect(stderr).toMatch(
        /agentport: listening on every interface without publicUrl \(or PUBLIC_URL\): the agent cards name http:\/\/127\.0\.0\.1:\d+, which only this host can reach/,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('advertises PUBLIC_URL in its cards, and refuses an invalid one', async () => {
    const gateway = await start([], { PUBLIC_URL: 'https://agents.example.com/gw' });
    const card = (await (await fetch(`${gateway.url}/.well-known/agent.json`)).json()) as {
      endpoint: string;
    };
    expect(card.endpoint).toBe('https://agents.example.com/gw');
    const failed = await run(process.execPath, [CLI, 'serve', '--port', '0'], {
      env: { ...process.env, PUBLIC_URL: 'https://agents.example.com/?x=1' },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({
      code: 1,
      stderr: 'agentport: invalid PUBLIC_URL: must not have a query or a fragment\n',
    });
  });

  it('lists agents and calls one locally', async () => {
    const { stdout: agents } = await run(process.execPath, [CLI, 'agents']);
    expect(agents).toMatch(/^assistant \(default\): .*\[tools: calculator, clock, word_count\]$/m);
    // As `pnpm start -- --config FILE` passes it on: the `--` before the options is dropped.
    for (const args of [
      ['agents', '--', '--config', CUSTOM],
      ['--', 'agents', '--config', CUSTOM],
    ]) {
      const { stdout } = await run(process.execPath, [CLI, ...args]);
      expect(stdout, args.join(' ')).toMatch(/^shout/m);
    }
    // An agent without a description is listed by its name alone.
    const bare =
      "export default { builtins: false, agents: [{ name: 'bare', tools: [], handoffs: [], invoke: async () => '', async *stream() {} }] };\n";
    await withConfigFile(bare, async (config) => {
      const { stdout } = await run(process.execPath, [CLI, 'agents', '--config', config]);
      expect(stdout).toBe('bare (default)\n');
    });
    const { stdout: answer } = await run(process.execPath, [
      CLI,
      'call',
      'assistant',
      'what is 1 + 2',
    ]);
    expect(answer).toBe('1 + 2 = 3\n');
    const { stdout: events } = await run(process.execPath, [
      CLI,
      'call',
      'echo',
      'a b',
      '--stream',
    ]);
    expect(
      events
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).type),
    ).toEqual(['text-delta', 'text-delta', 'done']);
  });

  it('cancels a remote task when call --stream gets Ctrl-C, even signalled twice at once (as under pnpm)', async () => {
    const upstream = await start();
    const source = `export default { builtins: false, remotes: [{ url: '${upstream.url}/agents/ticker', name: 'far-ticker' }] };\n`;
    await withConfigFile(source, async (config) => {
      const child = spawn(
        process.execPath,
        [CLI, 'call', 'far-ticker', '1000 every 50ms', '--stream', '--config', config],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      child.stdout.setEncoding('utf8');
      await new Promise<void>((resolve) => {
        child.stdout.on('data', (chunk: string) => {
          stdout += chunk;
          if (stdout.split('\n').length > 3) resolve();
        });
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      // The terminal's SIGINT, and pnpm's copy of it a moment later: sent every 2 ms for 100 ms,
      // so that one lands while the process ends (no copy may end it by the signal then).
      child.kill('SIGINT');
      const copies = setInterval(() => child.kill('SIGINT'), 2);
      setTimeout(() => clearInterval(copies), 100);
      expect(await exited).toBe(130);
      clearInterval(copies);
      const list = await fetch(`${upstream.url}/agents/ticker/tasks`);
      const { tasks } = (await list.json()) as { tasks: { status: string }[] };
      expect(tasks.map((task) => task.status)).toEqual(['canceled']);
    });
  });

  it("lets a config's beforeExit listener finish its work before the process exits", async () => {
    // As an agent SDK flushes its traces: work started on beforeExit, done a moment later.
    const source = `process.once('beforeExit', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      process.stderr.write('flushed\\n');
    });
    export default {};\n`;
    await withConfigFile(source, async (config) => {
      const { stdout, stderr } = await run(process.execPath, [
        CLI,
        'call',
        'echo',
        'hello',
        '--config',
        config,
      ]);
      expect(stdout).toBe('hello\n');
      expect(stderr).toBe('flushed\n');
    });
  });

  it('calls a remote agent by URL: an SDK card, a hand-rolled card, a REST/SSE agent', async () => {
    const gateway = await start();
    for (const url of [
      `${gateway.url}/a2a/assistant/.well-known/agent-card.json`,
      `${gateway.url}/agents/assistant/.well-known/agent.json`,
      `${gateway.url}/a2a/assistant`,
      `${gateway.url}/agents/assistant`,
      `${gateway.url}/agents/assistant/invoke`,
    ]) {
      const { stdout } = await run(process.execPath, [CLI, 'call', url, 'what is 6 * 7']);
      expect(stdout, url).toBe('6 * 7 = 42\n');
    }
    const { stdout: events } = await run(process.execPath, [
      CLI,
      'call',
      `${gateway.url}/agents/assistant`,
      'what is 6 * 7',
      '--stream',
    ]);
    expect(
      events
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).type),
    ).toEqual(['tool-call', 'tool-result', 'text-delta', 'done']);
    // The remote's own error, by its code; an unknown agent is the remote's 404.
    const failed = await run(process.execPath, [
      CLI,
      'call',
      `${gateway.url}/agents/nobody`,
      'hi',
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toMatch(/^agentport: agent_not_found: /);
    // One that cannot be reached says so in one line, without a stack.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await run(process.execPath, [
      CLI,
      'call',
      `http://127.0.0.1:${port}/agents/echo`,
      'hi',
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(unreachable).toMatchObject({
      code: 1,
      stderr: `agentport: remote_unreachable: stream failed: cannot reach http://127.0.0.1:${port}/agents/echo/stream (ECONNREFUSED)\n`,
    });
  });

  it('sends AGENTPORT_API_KEY to a remote called by URL', async () => {
    const key = 'a-key-of-sixteen-chars';
    await withConfigFile(`export default { apiKeys: ['${key}'] };\n`, async (config) => {
      const gateway = await start(['--config', config]);
      const url = `${gateway.url}/agents/echo`;
      const refused = await run(process.execPath, [CLI, 'call', url, 'hi']).catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect((refused as { stderr: string }).stderr).toMatch(/unauthorized/);
      const { stdout } = await run(process.execPath, [CLI, 'call', url, 'hi'], {
        env: { ...process.env, AGENTPORT_API_KEY: key },
      });
      expect(stdout).toBe('hi\n');
    });
  });

  it('prints a remote card', async () => {
    const gateway = await start();
    const { stdout } = await run(process.execPath, [CLI, 'card', `${gateway.url}/a2a/echo`]);
    expect(JSON.parse(stdout)).toMatchObject({ name: 'echo' });
    const { stdout: handRolled } = await run(process.execPath, [
      CLI,
      'card',
      `${gateway.url}/agents/echo/.well-known/agent.json`,
    ]);
    expect(JSON.parse(handRolled)).toMatchObject({
      name: 'echo',
      endpoint: `${gateway.url}/agents/echo`,
    });
  });

  it('says how to load a config that Node reads as CommonJS', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'agentport-config-'));
    try {
      writeFileSync(join(folder, 'package.json'), '{"type":"commonjs"}');
      for (const [name, rename] of [
        ['cjs.config.ts', '.mts'],
        ['cjs.config.js', '.mjs'],
      ]) {
        const file = join(folder, name as string);
        writeFileSync(file, "import { env } from 'node:process';\nexport default { port: 1 };\n");
        const failure = await run(process.execPath, [CLI, 'agents', '--config', file]).catch(
          (error: { code: number; stderr: string }) => error,
        );
        expect(failure).toMatchObject({ code: 1 });
        expect((failure as { stderr: string }).stderr).toContain(
          `Cannot use import statement outside a module (name the file ${rename}, or put "type": "module" in the package.json next to it)`,
        );
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('exits 1 naming the field of an invalid config', async () => {
    const failure = await run(process.execPath, [CLI, 'serve', '--config', INVALID]).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toMatch(/Invalid config: port: /);
  });

  it.each([
    [['serve', '--port='], {}, /invalid port ''/],
    [['serve'], { PORT: '0x1F90' }, /invalid port '0x1F90'/],
    [['serve'], { LOG_LEVEL: 'verbose' }, /invalid LOG_LEVEL 'verbose'/],
  ])('exits 1 on %j with %j, in one line', async (args, env, message) => {
    const failure = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1 });
    const { stderr } = failure as { stderr: string };
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('card shows no credentials or query of the URL it was given', async () => {
    const gateway = await start();
    const { host } = new URL(gateway.url);
    for (const [url, message] of [
      [`http://user:s3cret@${host}/agents/echo?token=abc`, 'must not contain credentials'],
      [
        `${gateway.url}/agents/nobody?token=abc`,
        '/agents/nobody/.well-known/agent-card.json: HTTP 404',
      ],
    ] as const) {
      const failure = await run(process.execPath, [CLI, 'card', url]).catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure).toMatchObject({ code: 1 });
      const { stderr } = failure as { stderr: string };
      expect(stderr).toContain(message);
      expect(stderr).not.toMatch(/s3cret|token/);
    }
  });

  it('card refuses a JSON document that is not an agent card', async () => {
    const gateway = await start();
    const failure = await run(process.execPath, [CLI, 'card', `${gateway.url}/openapi.json`]).catch(
      (error: { code: number; stderr: string; stdout: string }) => error,
    );
    expect(failure).toMatchObject({ code: 1, stdout: '' });
    expect((failure as { stderr: string }).stderr).toContain('not an agent card');
  });

  it('refuses arguments serve and agents do not take (exit 2)', async () => {
    for (const args of [
      ['serve', 'extra'],
      ['agents', 'junk'],
    ]) {
      const failure = await run(process.execPath, [CLI, ...args]).catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure).toMatchObject({ code: 2 });
      expect((failure as { stderr: string }).stderr).toContain(`unexpected argument '${args[1]}'`);
    }
    // And call and card without what they need: a usage line, prefixed as every message.
    for (const [args, usage] of [
      [['call', 'echo'], 'agentport: usage: agentport call <agent or url> <input> [--stream]\n'],
      [['card'], 'agentport: usage: agentport card <url>\n'],
    ] as const) {
      const failure = await run(process.execPath, [CLI, ...args]).catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure).toMatchObject({ code: 2, stderr: usage });
    }
  });

  it('prints the cause of an agent failure on call, a local command', async () => {
    const failure = await run(process.execPath, [
      CLI,
      'call',
      'broken',
      'x',
      '--config',
      FAILING,
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1 });
    const { stderr } = failure as { stderr: string };
    expect(stderr).toContain("agentport: agent_failure: Agent 'broken' failed\n");
    expect(stderr).toContain('caused by: Error: database password rejected');
    const refused = await run(process.execPath, [CLI, 'call', 'ticker', 'banana']).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused).toMatchObject({ code: 1 });
    expect((refused as { stderr: string }).stderr).toMatch(/^agentport: invalid_input: Ticker /);
    const streamed = await run(process.execPath, [
      CLI,
      'call',
      'broken',
      'x',
      '--stream',
      '--config',
      FAILING,
    ]).catch((error: { code: number; stderr: string; stdout: string }) => error);
    expect(streamed).toMatchObject({ code: 1 });
    expect((streamed as { stdout: string }).stdout).toContain('"type":"error"');
    expect((streamed as { stderr: string }).stderr).toContain(
      'caused by: Error: database password rejected',
    );
  });

  it('ends quietly when its output is piped into a reader that stops early', async () => {
    const child = spawn(process.execPath, [CLI, 'agents'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('exits 1 when the port is busy', async () => {
    const gateway = await start();
    const port = new URL(gateway.url).port;
    const failure = await run(process.execPath, [CLI, 'serve', '--port', port]).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 1 });
    const { stderr } = failure as { stderr: string };
    expect(stderr).toContain('already in use');
    // The message says it all: no stack of the system error behind it.
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('answers an unknown option as a usage error (exit 2)', async () => {
    const failure = await run(process.execPath, [CLI, 'agents', '--colour']).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain("Unknown option '--colour'");
  });

  it('keeps the exit codes through the repository script (pnpm -s agentport)', async () => {
    const root = fileURLToPath(new URL('../../../../', import.meta.url));
    const failure = await run('pnpm', ['-s', 'agentport', 'agents', '--colour'], {
      cwd: root,
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2 });
    const { stdout } = await run('pnpm', ['-s', 'agentport', 'agents'], { cwd: root });
    expect(stdout).toContain('echo:');
  });

  it('ends a call interrupted with Ctrl-C quietly, with exit code 130', async () => {
    for (const args of [
      ['call', 'waiter', 'x', '--config', WAITING],
      ['call', 'waiter', 'x', '--stream', '--config', WAITING],
    ]) {
      const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      const started = new Promise<void>((resolve) =>
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes('started')) resolve();
        }),
      );
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      await started;
      child.kill('SIGINT');
      // Only what the agent itself wrote: no error, no stack.
      expect([args, await exited, stderr]).toEqual([args, 130, 'started\n']);
    }
  });
});
