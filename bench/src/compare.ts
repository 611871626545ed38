// `pnpm bench:compare <git-ref> [--rounds N] [--seconds S] [--pairs P] [path ...]`: this tree's
// gateway side by side with the gateway of another commit (checked out in a temporary git
// worktree), both pinned to the server CPU, taking turns under wrk; prints the server CPU per
// request of each and their ratio, the median of the rounds' ratios (of every pair of
// processes). For telling whether a change made a route cheaper on this noisy machine, where
// figures from two separate `pnpm bench` runs are not comparable.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pin, type ServerChild, startChild } from './child.ts';
import {
  type CompareArgs,
  compareRounds,
  cpuMsOfStat,
  parseCompareArgs,
  type SideRun,
} from './compare-figures.ts';
import { splitCpus } from './environment.ts';
import { checkAndWarmUp, succeeded } from './measure.ts';
import { A2A_HEADERS, ECHO_INPUT, jsonRpcBody, STREAM_INPUT } from './scenarios.ts';
import { formatNumber, textTable } from './table.ts';
import { hasWrk, runWrk } from './wrk.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function git(args: string[], cwd = root): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Checks `ref` out in a temporary worktree with its dependencies installed; returns its path. */
function checkOut(ref: string): string {
  const commit = git(['rev-parse', '--verify', `${ref}^{commit}`]).trim();
  const directory = join(mkdtempSync(join(tmpdir(), 'agentport-compare-')), 'tree');
  git(['worktree', 'add', '--detach', directory, commit]);
  log(`${ref} (${commit.slice(0, 12)}) checked out in ${directory}; installing its dependencies`);
  const install = (extra: string[]) =>
    execFileSync('pnpm', ['install', '--frozen-lockfile', ...extra], {
      cwd: directory,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  try {
    install(['--offline']);
  } catch {
    install([]);
  }
  return directory;
}

function removeTree(directory: string): void {
  try {
    git(['worktree', 'remove', '--force', directory]);
  } catch {
    rmSync(directory, { recursive: true, force: true });
    git(['worktree', 'prune']);
  }
  rmSync(dirname(directory), { recursive: true, force: true });
}

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
const cpuMs = (pid: number) =>
  cpuMsOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'), ticksPerSecond);

/** What wrk sends to a route: a JSON-RPC SendMessage to `/jsonrpc`, else an `{ input }` body. */
function requestFor(url: string, path: string) {
  if (path.endsWith('/jsonrpc')) {
    return { url: `${url}${path}`, body: jsonRpcBody('SendMessage'), headers: A2A_HEADERS };
  }
  const input = path.endsWith('/stream') ? STREAM_INPUT : ECHO_INPUT;
  return { url: `${url}${path}`, body: JSON.stringify({ input }) };
}

async function compare(args: CompareArgs): Promise<void> {
  const { serverCpus, loadCpus } = splitCpus();
  if (loadCpus !== undefined) pin(process.pid, loadCpus);
  const tree = checkOut(args.ref);
  const wrk = { connections: 32, cpus: loadCpus };
  /** Every round of every pair, per route: the ref's side and this tree's. */
  const runs = new Map(
    args.paths.map((path) => [path, { base: [] as SideRun[], head: [] as SideRun[] }]),
  );
  let servers: ServerChild[] = [];
  try {
    for (let pair = 0; pair < args.pairs; pair += 1) {
      const base = await startChild('gateway', {
        cpus: serverCpus,
        serveScript: join(tree, 'bench/src/serve.ts'),
      });
      servers = [base];
      const head = await startChild('gateway', { cpus: serverCpus });
      servers.push(head);
      for (const path of args.paths) {
        for (const server of servers) {
          await checkAndWarmUp(requestFor(server.url, path), succeeded, wrk, 2);
        }
        const route = runs.get(path) as { base: SideRun[]; head: SideRun[] };
        for (let round = 0; round < args.rounds; round += 1) {
          for (const server of round % 2 === 0 ? [base, head] : [head, base]) {
            const before = cpuMs(server.pid);
            const run = await runWrk(requestFor(server.url, path), {
              ...wrk,
              seconds: args.seconds,
            });
            if (run.errors > 0) throw new Error(`${run.errors} requests to ${path} failed`);
            (server === base ? route.base : route.head).push({
              cpuUsPerRequest: ((cpuMs(server.pid) - before) * 1000) / run.requests,
              requestsPerSecond: run.requestsPerSecond,
            });
          }
        }
      }
      await Promise.all(servers.map((server) => server.stop()));
      servers = [];
      if (args.pairs > 1) log(`pair ${pair + 1} of ${args.pairs} done`);
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    removeTree(tree);
  }
  const rows = [
    [
      'route',
      `${args.ref} µs/req`,
      'this µs/req',
      'this/ref CPU',
      `${args.ref} req/s`,
      'this req/s',
    ],
  ];
  for (const [path, route] of runs) {
    const figures = compareRounds(route.base, route.head);
    rows.push([
      path,
      formatNumber(figures.base.cpuUsPerRequest, 1),
      formatNumber(figures.head.cpuUsPerRequest, 1),
      `${figures.cpuRatio.toFixed(3)}x`,
      formatNumber(figures.base.requestsPerSecond),
      formatNumber(figures.head.requestsPerSecond),
    ]);
  }
  process.stdout.write(`${textTable(rows)}\n`);
}

if (import.meta.main) {
  let args: CompareArgs;
  try {
    args = parseCompareArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(
      `${(error as Error).message}\nusage: pnpm bench:compare <git-ref> [--rounds N] [--seconds S] [--pairs P] [path ...]\n`,
    );
    process.exit(2);
  }
  if (!hasWrk()) {
    process.stderr.write('bench:compare needs wrk on the PATH (see bench/README.md).\n');
    process.exit(1);
  }
  await compare(args);
  process.exit(0);
}
