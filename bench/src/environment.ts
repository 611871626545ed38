import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, totalmem } from 'node:os';

/** The machine the figures come from. */
export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  wrk: string;
  kernel: string;
  date: string;
}

function wrkVersion(): string {
  try {
    return execFileSync('wrk', ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? '';
  } catch (error) {
    // wrk --version exits 1 after printing its version.
    const stdout = (error as { stdout?: string }).stdout ?? '';
    return stdout.split('\n')[0]?.trim() || 'not found';
  }
}

/** Describes this machine. */
export function describeMachine(): Machine {
  let kernel = 'unknown';
  try {
    kernel = execFileSync('uname', ['-sr'], { encoding: 'utf8' }).trim();
  } catch {
    // not a Unix
  }
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    wrk: wrkVersion().replace(/\s*\[.*$/, ''),
    kernel,
    date: new Date().toISOString().slice(0, 10),
  };
}

/** Whether `taskset` can pin processes here. */
export function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Where the servers and the load generator run: CPU lists for `taskset`, or undefined. */
export interface CpuSplit {
  serverCpus: string | undefined;
  loadCpus: string | undefined;
}

/**
 * The servers on the first CPU and the load generator on the others, when `taskset` can pin and
 * there are two CPUs or more; nothing pinned otherwise.
 */
export function splitCpus(): CpuSplit {
  const count = availableParallelism();
  if (count < 2 || !hasTaskset()) return { serverCpus: undefined, loadCpus: undefined };
  return { serverCpus: '0', loadCpus: count === 2 ? '1' : `1-${count - 1}` };
}
