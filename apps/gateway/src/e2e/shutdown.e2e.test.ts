import { spawn } from 'node:child_process';
import { delimiter, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { gatewayProcesses, withConfigFile } from '../testing/gateway-process.ts';
import { completed } from '../testing/invoke-answer.ts';
import { readEvents } from '../testing/sse.ts';

// Shutdown: signals, in-flight requests, the shutdown timeout, and `pnpm start` as a container runs it.
const DEAF = fileURLToPath(new URL('./fixtures/deaf.config.ts', import.meta.url));
const json = { 'content-type': 'application/json' };
const start = gatewayProcesses();

describe('graceful shutdown', () => {
  it('ends open streams with a final event, lets in-flight invokes finish, cancels tasks and exits 0', async () => {
    const gateway = await start();
    const stream = await fetch(`${gateway.url}/agents/ticker/stream`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: '1000 every 50ms' }),
    });
    const invoke = fetch(`${gateway.url}/agents/ticker/invoke`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: '4 every 150ms' }),
    });
    const task = (await (
      await fetch(`${gateway.url}/agents/ticker/tasks`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ input: '1000 every 50ms' }),
      })
    ).json()) as { task: { id: string } };
    const watched = await fetch(`${gateway.url}/agents/ticker/tasks/${task.task.id}/events`);
    let seen = 0;
    // By the third tick (100 ms on) the invoke is in flight on its own connection.
    const events = readEvents(stream, () => {
      seen += 1;
      if (seen === 3) gateway.child.kill('SIGTERM');
    });
    const exited = new Promise<number | null>((resolve) => gateway.child.once('exit', resolve));
    const received = await events;
    expect(received.at(-1)?.event).toBe('error');
    expect(JSON.parse(received.at(-1)?.data ?? '')).toEqual({
      code: 'shutting_down',
      message: 'The server is shutting down',
    });
    const invoked = await invoke;
    expect(invoked.status).toBe(200);
    expect(await invoked.json()).toEqual(completed('tick 1\ntick 2\ntick 3\ntick 4'));
    const taskEvents = await readEvents(watched);
    // The stream's last event is the task's terminal status update.
    expect(taskEvents.at(-1)?.event).toBe('status-update');
    expect(JSON.parse(taskEvents.at(-1)?.data ?? '')).toMatchObject({
      type: 'status-update',
      status: 'canceled',
    });
    expect(await exited).toBe(0);
  });

  it("exits 0 when copies of its SIGINT keep landing while it stops (pnpm's copy of a Ctrl-C)", async () => {
    const gateway = await start();
    const exited = new Promise<number | null>((resolve) => gateway.child.once('exit', resolve));
    gateway.child.kill('SIGINT');
    // Every 2 ms for 150 ms (less than a second Ctrl-C's 250 ms): one lands as the process ends.
    const copies = setInterval(() => gateway.child.kill('SIGINT'), 2);
    setTimeout(() => clearInterval(copies), 150);
    try {
      expect(await exited).toBe(0);
    } finally {
      clearInterval(copies);
    }
  });
});

describe('pnpm start', () => {
  it.each([
    ['pnpm itself gets SIGTERM (as docker stop sends it)', 'SIGTERM', false],
    // pnpm forwards it to the gateway, which gets it twice: not a second request to stop.
    ['the whole process group gets SIGINT (Ctrl-C in a terminal)', 'SIGINT', true],
  ] as const)('stops gracefully when %s, and exits 0', async (_how, signal, group) => {
    const root = fileURLToPath(new URL('../../../../', import.meta.url));
    // As a shell or a container starts it: without the `node_modules/.bin` folders a pnpm script
    // (this test's) puts first on PATH, where `node` is pnpm's shim, which would run pnpm itself
    // under a shell that a signal ends alone.
    const path = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((folder) => !folder.includes(`node_modules${sep}.bin`))
      .join(delimiter);
    // Its own process group: pnpm alone or the whole group is signalled, and it is cleaned up.
    const child = spawn('pnpm', ['start'], {
      cwd: root,
      env: { ...process.env, PATH: path, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const pid = child.pid as number;
    let stdout = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not started:\n${stdout}`)), 15_000);
        child.stdout?.on('data', () => {
          const match = /AgentPort gateway listening on (http:\/\/\S+)/.exec(stdout);
          if (match?.[1] === undefined) return;
          clearTimeout(timer);
          resolve(match[1]);
        });
      });
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      process.kill(group ? -pid : pid, signal);
      expect(await exited).toBe(0);
      expect(stdout).toContain(`"signal":"${signal}","msg":"shutting down"`);
      expect(stdout).toContain('"msg":"stopped"');
      expect(stdout).not.toContain('stopping now');
      await expect(fetch(`${url}/readyz`)).rejects.toThrow();
    } finally {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // The whole group has exited.
      }
    }
  });
});

describe('remote agents', () => {
  it('have the tasks of runs cut at the shutdown timeout canceled before the process exits', async () => {
    const upstream = await start();
    const source = `export default { builtins: false, shutdownTimeoutMs: 300, remotes: [
      { url: '${upstream.url}/agents/ticker', kind: 'a2a-http', name: 'http-ticker' },
      { url: '${upstream.url}/a2a/ticker', kind: 'a2a-sdk', name: 'sdk-ticker' },
    ] };\n`;
    await withConfigFile(source, async (config) => {
      const downstream = await start(['--config', config]);
      // Compat runs: in flight when the shutdown starts, they are cut at its timeout.
      const runs = ['http-ticker', 'sdk-ticker'].map((name) =>
        fetch(`${downstream.url}/compat/runs`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ agent_name: name, input: '1000 every 50ms' }),
        }).catch((error: unknown) => error),
      );
      const handRolled = async () =>
        (
          (await (await fetch(`${upstream.url}/agents/ticker/tasks`)).json()) as {
            tasks: { status: string }[];
          }
        ).tasks.map((task) => task.status);
      const sdk = async () => {
        const answer = await fetch(`${upstream.url}/a2a/ticker/jsonrpc`, {
          method: 'POST',
          headers: { ...json, 'a2a-version': '1.0' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
        });
        const { result } = (await answer.json()) as {
          result: { tasks: { status: { state: string } }[] };
        };
        return result.tasks.map((task) => task.status.state);
      };
      // One task model upstream: each flavour lists both tasks, whichever created it.
      await expect
        .poll(
          async () =>
            (await handRolled()).join() === 'working,working' &&
            (await sdk()).join() === 'TASK_STATE_WORKING,TASK_STATE_WORKING',
          { timeout: 3_000, interval: 50 },
        )
        .toBe(true);
      expect(await downstream.stop()).toBe(0);
      await Promise.all(runs);
      expect(await handRolled()).toEqual(['canceled', 'canceled']);
      expect(await sdk()).toEqual(['TASK_STATE_CANCELED', 'TASK_STATE_CANCELED']);
    });
  });
});

describe('an agent that ignores its abort signal', () => {
  it('does not keep the process alive past the shutdown timeout: it exits 0', async () => {
    const gateway = await start(['--config', DEAF], { LOG_LEVEL: 'info' });
    const call = fetch(`${gateway.url}/agents/deaf/invoke`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: 'x' }),
    }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stopping = performance.now();
    expect(await gateway.stop()).toBe(0);
    expect(performance.now() - stopping).toBeLessThan(5_000);
    await call;
    expect(gateway.output()).toContain('"msg":"stopped"');
  });

  it('logs the requests cut at the shutdown timeout (499) before it says stopped', async () => {
    const gateway = await start(['--config', DEAF], { LOG_LEVEL: 'info' });
    // A body of declared length goes the Node fast path, a streamed one through the Hono app.
    const text = JSON.stringify({ input: 'x' });
    const streamed = () =>
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        },
      });
    const calls = [
      fetch(`${gateway.url}/agents/deaf/invoke`, { method: 'POST', headers: json, body: text }),
      fetch(`${gateway.url}/agents/deaf/invoke`, {
        method: 'POST',
        headers: json,
        body: streamed(),
        duplex: 'half',
      } as RequestInit),
    ].map((call) => call.catch((error: unknown) => error));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await gateway.stop()).toBe(0);
    await Promise.all(calls);
    const lines = gateway
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; status?: number; path?: string });
    const stopped = lines.findIndex((line) => line.msg === 'stopped');
    const cut = lines.filter(
      (line) => line.msg === 'request' && line.path === '/agents/deaf/invoke',
    );
    expect(cut.map((line) => line.status)).toEqual([499, 499]);
    expect(lines.findLastIndex((line) => line.msg === 'request')).toBeLessThan(stopped);
  });
});

describe('a second signal', () => {
  it('stops at once with exit code 1, without waiting for requests in flight', async () => {
    const gateway = await start();
    const invoke = fetch(`${gateway.url}/agents/ticker/invoke`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: '100 every 100ms' }),
    }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const exited = new Promise<number | null>((resolve) => gateway.child.once('exit', resolve));
    gateway.child.kill('SIGTERM');
    // Later than REPEATED_SIGNAL_MS (250 ms), within which a signal counts as a repeat of the first.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const forcedAt = Date.now();
    gateway.child.kill('SIGINT');
    expect(await exited).toBe(1);
    // The invoke had ~9.6 s to go, and the shutdown timeout is 10 s.
    expect(Date.now() - forcedAt).toBeLessThan(2_000);
    expect(await invoke).toBeInstanceOf(Error);
  });
});
