import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll } from 'vitest';

const run = promisify(execFile);

/**
 * The environment of commands run in a project: this Node (24) first on the PATH, so `npm`,
 * `npx` and the bins they start run on it, and npm quiet about audits, funding and updates.
 */
export const PROJECT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  LOG_LEVEL: 'info',
};

// What the helpers below leave behind (folders, processes), undone once the test file is done:
// registered here, at import, since a hook registered from within beforeAll is never run.
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A new folder outside the repository, removed once the file's tests are done. */
export async function temporaryFolder(prefix: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

/** Writes files (paths relative to `folder`), creating their folders. */
export async function writeFiles(folder: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(folder, path)), { recursive: true });
    await writeFile(join(folder, path), text);
  }
}

/** Runs a command in a project folder with {@link PROJECT_ENV}; rejects with its output on failure. */
export async function runIn(
  folder: string,
  command: string,
  args: string[],
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(command, args, { cwd: folder, env: PROJECT_ENV, maxBuffer: 64 << 20 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${folder}:\n${stdout}\n${stderr}`);
  }
}

/**
 * Installs tarballs into a project with npm, as a user installs the packages from the registry:
 * all at once, so the packages' dependencies on each other are met by these tarballs.
 */
export async function installTarballs(folder: string, tarballs: string[]): Promise<void> {
  await runIn(folder, 'npm', ['install', '--no-package-lock', ...tarballs]);
}

/** A server started as a process, once it said where it listens. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything it printed to stdout so far. */
  output(): string;
}

/**
 * Starts a command that prints `listening on http://...` (the gateway's first line), and stops it
 * once the file's tests are done: its whole process group, since `npx` runs the bin under a shell
 * of its own that a signal to `npx` alone would leave running.
 */
export async function startServer(
  folder: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<ServerProcess> {
  const child = spawn(command, args, {
    cwd: folder,
    env: { ...PROJECT_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  cleanups.push(async () => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      return; // the group has already ended
    }
    await exited;
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
    const timer = setTimeout(() => reject(new Error(`did not start:\n${stdout}${stderr}`)), 60_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      resolve(match[1]);
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${stdout}${stderr}`));
    });
  });
  return { url, child, output: () => stdout };
}
