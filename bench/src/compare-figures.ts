import { median } from './table.ts';

/**
 * The CPU time a process has used (user and system, all its threads) in milliseconds, from the
 * text of its `/proc/<pid>/stat`; `ticksPerSecond` is the kernel's clock tick (`getconf CLK_TCK`).
 */
export function cpuMsOfStat(stat: string, ticksPerSecond: number): number {
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, the 12th and 13th after the name.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/** What `bench:compare` was asked for. */
export interface CompareArgs {
  /** The git ref whose gateway is compared with this tree's. */
  ref: string;
  paths: string[];
  rounds: number;
  seconds: number;
  /**
   * How many times both gateways are started afresh, each pair running every round: a process's
   * JIT can leave it a few percent faster or slower than an identical one for its whole life.
   */
  pairs: number;
}

/** The routes compared when none are given: an invoke, a create-and-wait and a 10-event stream. */
export const DEFAULT_COMPARE_PATHS = [
  '/agents/echo/invoke',
  '/agents/echo/tasks?wait=10',
  '/agents/echo/stream',
];

function positiveInteger(flag: string, value: string | undefined): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new Error(`${flag} takes a positive whole number, got '${value ?? ''}'`);
  }
  return number;
}

/** Parses `<ref> [--rounds N] [--seconds S] [--pairs P] [path ...]`; throws a usage error. */
export function parseCompareArgs(argv: readonly string[]): CompareArgs {
  const args: CompareArgs = { ref: '', paths: [], rounds: 6, seconds: 2, pairs: 1 };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    if (arg === '--rounds') args.rounds = positiveInteger(arg, argv[++index]);
    else if (arg === '--seconds') args.seconds = positiveInteger(arg, argv[++index]);
    else if (arg === '--pairs') args.pairs = positiveInteger(arg, argv[++index]);
    else if (arg.startsWith('/')) args.paths.push(arg);
    else if (args.ref === '' && !arg.startsWith('-')) args.ref = arg;
    else throw new Error(`unexpected argument '${arg}'`);
  }
  if (args.ref === '') throw new Error('name the git ref to compare with, e.g. HEAD~3 or main');
  if (args.paths.length === 0) args.paths = [...DEFAULT_COMPARE_PATHS];
  return args;
}

/** One round of one side: server CPU per request and requests per second. */
export interface SideRun {
  cpuUsPerRequest: number;
  requestsPerSecond: number;
}

/** A route's comparison: medians per side, and the median of the rounds' CPU ratios. */
export interface Comparison {
  base: SideRun;
  head: SideRun;
  /** Median over the rounds of head / base server CPU per request (below 1: head is cheaper). */
  cpuRatio: number;
}

/**
 * Sums up rounds taken in turns (`base[i]` and `head[i]` ran one after the other): the ratio is
 * taken per round, then its median, so a slow spell of the machine falls on both sides of it.
 */
export function compareRounds(base: readonly SideRun[], head: readonly SideRun[]): Comparison {
  const side = (runs: readonly SideRun[]): SideRun => ({
    cpuUsPerRequest: median(runs.map((run) => run.cpuUsPerRequest)),
    requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
  });
  const ratios = head.map(
    (run, index) => run.cpuUsPerRequest / (base[index]?.cpuUsPerRequest ?? Number.NaN),
  );
  return { base: side(base), head: side(head), cpuRatio: median(ratios) };
}
