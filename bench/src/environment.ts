import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

/** One CPU's time counters from `/proc/stat`, in ticks: all of them, and stolen by the host. */
export interface CpuTicks {
  total: number;
  steal: number;
}

/**
 * Parses `/proc/stat` (Linux): each CPU's ticks by name (`cpu0`, `cpu1`, ...), the line summing
 * all CPUs left out. Steal is the 8th value: time a virtual CPU was ready but the hypervisor ran
 * something else.
 */
export function parseCpuTicks(stat: string): Map<string, CpuTicks> {
  const ticks = new Map<string, CpuTicks>();
  for (const line of stat.split('\n')) {
    const match = /^(cpu\d+)\s+(.*)$/.exec(line);
    if (match === null) continue;
    const values = (match[2] as string).trim().split(/\s+/).map(Number);
    // guest and guest_nice (9th, 10th) are already counted in user and nice.
    const total = values.slice(0, 8).reduce((sum, value) => sum + value, 0);
    ticks.set(match[1] as string, { total, steal: values[7] ?? 0 });
  }
  return ticks;
}

/** Every CPU's ticks now, or undefined where there is no `/proc/stat`. */
export function readCpuTicks(): Map<string, CpuTicks> | undefined {
  try {
    return parseCpuTicks(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The share of each CPU's time the host took between two readings, e.g. `CPU 0 4.1%, CPU 1 2.0%`
 * (empty when there is nothing to compare).
 */
export function describeSteal(
  before: Map<string, CpuTicks> | undefined,
  after: Map<string, CpuTicks> | undefined,
): string {
  if (before === undefined || after === undefined) return '';
  const shares: string[] = [];
  for (const [name, end] of after) {
    const start = before.get(name);
    if (start === undefined || end.total <= start.total) continue;
    const share = ((end.steal - start.steal) / (end.total - start.total)) * 100;
    shares.push(`CPU ${name.slice(3)} ${share.toFixed(1)}%`);
  }
  return shares.join(', ');
}
