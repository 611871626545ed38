import { execFileSync, fork, type Serializable } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ServerKind } from './serve.ts';

/** A server running in its own (pinned) child process. */
export interface ServerChild {
  readonly kind: ServerKind;
  readonly url: string;
  readonly pid: number;
  /** Heap used after two full GCs, in bytes. */
  heap(): Promise<number>;
  /** The child's wall clock (`performance.timeOrigin + performance.now()`), in milliseconds. */
  clock(): Promise<number>;
  /** When the child's `hold` agent saw task `id` abort, on its wall clock; undefined if it has not. */
  abortedAt(id: string): Promise<number | undefined>;
  /** Resident set size now, in bytes. */
  rss(): number;
  /** Stops the child (a CPU profile, if asked for, is written on the way out). */
  stop(): Promise<void>;
}

/** Options of {@link startChild}. */
export interface StartChildOptions {
  /** CPU list for `taskset`, or undefined not to pin. */
  cpus: string | undefined;
  /** Write a `--cpu-prof` profile into this directory. */
  profileDirectory?: string | undefined;
  /** The `serve.ts` to fork (default this tree's; another worktree's for `bench:compare`). */
  serveScript?: string;
}

/** Pins every thread of a process to some CPUs (`taskset -a -p -c`). */
export function pin(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}

/** Forks `serve.ts <kind>` pinned to the server's cores and waits until it listens. */
export function startChild(kind: ServerKind, options: StartChildOptions): Promise<ServerChild> {
  const execArgv = ['--expose-gc'];
  if (options.profileDirectory !== undefined) {
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${options.profileDirectory}`);
  }
  const script = options.serveScript ?? fileURLToPath(new URL('./serve.ts', import.meta.url));
  const child = fork(script, [kind], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pid = child.pid as number;
  if (options.cpus !== undefined) pin(pid, options.cpus);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${kind} server exited early (${code})`)));
    // The parent asks one thing at a time, so the next message is the answer.
    const ask = <Reply>(question: Serializable): Promise<Reply> =>
      new Promise((resolveReply) => {
        child.once('message', (reply: Reply) => resolveReply(reply));
        child.send(question);
      });
    child.once('message', (message: { port: number }) => {
      // Threads started since the fork (libuv, V8) inherit the affinity; pin again to be sure.
      if (options.cpus !== undefined) pin(pid, options.cpus);
      resolve({
        kind,
        url: `http://127.0.0.1:${message.port}`,
        pid,
        heap: () => ask<{ heap: number }>('heap').then((reply) => reply.heap),
        clock: () => ask<{ clock: number }>('clock').then((reply) => reply.clock),
        abortedAt: (id) =>
          ask<{ abortedAt: number | null }>({ abortedAt: id }).then(
            (reply) => reply.abortedAt ?? undefined,
          ),
        rss: () => {
          const status = readFileSync(`/proc/${pid}/status`, 'utf8');
          const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
          return kib * 1024;
        },
        stop: () => {
          if (child.connected) child.disconnect();
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          return exited.finally(() => clearTimeout(timer));
        },
      });
    });
  });
}
