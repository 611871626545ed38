import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));

/** A gateway started as a real process for end-to-end tests. */
export interface GatewayProcess {
  /** The base URL it listens on. */
  url: string;
  child: ChildProcess;
  /** Everything it printed to stdout so far. */
  output(): string;
  /** Everything it printed to stderr so far. */
  errors(): string;
  /** Sends a signal and resolves with the exit code once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `agentport serve --port 0` (plus `args`) with this Node and waits until it listens. */
export async function startGatewayProcess(
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gateway did not start:\n${stdout}${stderr}`)),
      15_000,
    );
    const check = () => {
      const match = /AgentPort gateway listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${stdout}${stderr}`));
    });
  });
  return {
    url,
    child,
    output: () => stdout,
    errors: () => stderr,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
  };
}

/**
 * Starts gateway processes for the tests of one file (see {@link startGatewayProcess}): each is
 * killed once its test ends.
 */
export function gatewayProcesses(): (
  args?: string[],
  env?: Record<string, string>,
) => Promise<GatewayProcess> {
  const started: GatewayProcess[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((gateway) => gateway.stop('SIGKILL')));
  });
  return async (args = [], env = {}) => {
    const gateway = await startGatewayProcess(args, env);
    started.push(gateway);
    return gateway;
  };
}

/**
 * Writes `source` as a config module in a folder of its own, runs `use` with its path, then
 * removes the folder.
 */
export async function withConfigFile<T>(
  source: string,
  use: (file: string) => Promise<T>,
): Promise<T> {
  const folder = mkdtempSync(join(tmpdir(), 'agentport-config-'));
  try {
    const file = join(folder, 'test.config.ts');
    writeFileSync(file, source);
    return await use(file);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
