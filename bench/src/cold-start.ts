import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pin } from './child.ts';
import { median } from './table.ts';

/** What the cold-start measurement found; times in ms from spawn to the first `/healthz` 200. */
export interface ColdStartFigures {
  /** The artifact's size in bytes. */
  artifactBytes: number;
  /** A bare `node:http` server's start (Node's own start-up, the floor), median. */
  floorMs: number;
  /** The artifact's start with an empty compile cache, as a new container's first start, median. */
  coldMs: number;
  /** The artifact's start once Node's compile cache holds it (every start after the first), median. */
  warmMs: number;
}

const GATEWAY = fileURLToPath(new URL('../../apps/gateway/', import.meta.url));

/** The floor: a server answering every request 200, in as little code as Node allows. */
const FLOOR_SOURCE =
  "require('node:http').createServer((q, s) => s.end('{}')).listen(Number(process.env.PORT), '127.0.0.1')";

/** A port free on 127.0.0.1 now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls `/healthz` until it answers 200; resolves with the ms since `started`. */
async function firstHealthy(port: number, started: number): Promise<number> {
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return performance.now() - started;
    if (performance.now() - started > 10_000) throw new Error('no /healthz 200 within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Starts `node <args>` (pinned), times it to its first `/healthz` 200, and kills it. */
async function timeStart(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  cpus: string | undefined,
): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
  if (cpus !== undefined) pin(child.pid as number, cpus);
  try {
    return await firstHealthy(port, started);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/**
 * Builds the gateway's artifact, copies it alone into an empty folder (as a container holds it)
 * and times its starts to the first `/healthz` 200, taking turns with the floor.
 */
export async function measureColdStart(options: {
  runs: number;
  cpus: string | undefined;
}): Promise<ColdStartFigures> {
  execFileSync('pnpm', ['run', 'build'], { cwd: GATEWAY, stdio: 'ignore' });
  const folder = mkdtempSync(join(tmpdir(), 'agentport-cold-start-'));
  try {
    mkdirSync(join(folder, 'dist'));
    const artifact = join(folder, 'dist/cli.js');
    copyFileSync(join(GATEWAY, 'dist/cli.js'), artifact);
    const floor: number[] = [];
    const cold: number[] = [];
    const warm: number[] = [];
    const warmCache = join(folder, 'warm-cache');
    const serve = ['dist/cli.js', 'serve'];
    // The first start fills the warm cache; it is not counted.
    await timeStart(serve, folder, { NODE_COMPILE_CACHE: warmCache }, options.cpus);
    for (let run = 0; run < options.runs; run++) {
      floor.push(await timeStart(['-e', FLOOR_SOURCE], folder, {}, options.cpus));
      const empty = join(folder, `cold-cache-${run}`);
      cold.push(await timeStart(serve, folder, { NODE_COMPILE_CACHE: empty }, options.cpus));
      warm.push(await timeStart(serve, folder, { NODE_COMPILE_CACHE: warmCache }, options.cpus));
    }
    return {
      artifactBytes: statSync(artifact).size,
      floorMs: median(floor),
      coldMs: median(cold),
      warmMs: median(warm),
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
