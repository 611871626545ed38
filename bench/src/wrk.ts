import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One wrk run: requests per second and latency percentiles in milliseconds. */
export interface WrkResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
}

/** What to send: a POST with a JSON body, where `{{n}}` is replaced by a per-request counter. */
export interface WrkRequest {
  url: string;
  body: string;
  headers?: Record<string, string>;
}

/** Options of {@link runWrk}. */
export interface WrkOptions {
  seconds: number;
  connections: number;
  /** CPU list for `taskset -c` (the load generator's cores), or undefined not to pin. */
  cpus: string | undefined;
}

/** Whether wrk is on the PATH. */
export function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // wrk --version exits 1 after printing its version.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

const luaString = (value: string) => `"${value.replace(/[\\"]/g, '\\$&').replace(/\n/g, '\\n')}"`;

/** The Lua script: POST, headers, a body per request, and a JSON summary on stdout. */
export function wrkScript(request: WrkRequest): string {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    headers[name.toLowerCase()] = value;
  }
  const lines = [
    'wrk.method = "POST"',
    ...Object.entries(headers).map(
      ([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`,
    ),
  ];
  if (request.body.includes('{{n}}')) {
    lines.push(
      `local template = ${luaString(request.body)}`,
      'local counter = 0',
      'request = function()',
      '  counter = counter + 1',
      '  local body = string.gsub(template, "{{n}}", tostring(counter))',
      '  return wrk.format(nil, nil, nil, body)',
      'end',
    );
  } else {
    lines.push(`wrk.body = ${luaString(request.body)}`);
  }
  lines.push(
    'done = function(summary, latency, requests)',
    '  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout',
    '  io.write(string.format(\'WRK {"requests":%d,"durationUs":%d,"errors":%d,"p50Us":%d,"p99Us":%d}\\n\',',
    '    summary.requests, summary.duration, errors, latency:percentile(50), latency:percentile(99)))',
    'end',
  );
  return `${lines.join('\n')}\n`;
}

/** Runs wrk once (one thread) against a URL and parses its summary. */
export function runWrk(request: WrkRequest, options: WrkOptions): Promise<WrkResult> {
  const directory = mkdtempSync(join(tmpdir(), 'agentport-bench-'));
  const script = join(directory, 'request.lua');
  writeFileSync(script, wrkScript(request));
  const wrkArgs = [
    '-t1',
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    '--timeout',
    '5s',
    '-s',
    script,
    request.url,
  ];
  const [command, args] =
    options.cpus === undefined
      ? ['wrk', wrkArgs]
      : ['taskset', ['-c', options.cpus, 'wrk', ...wrkArgs]];
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: (options.seconds + 30) * 1000 }, (error, stdout) => {
      rmSync(directory, { recursive: true, force: true });
      if (error) return reject(error);
      const line = stdout.split('\n').find((candidate) => candidate.startsWith('WRK '));
      if (line === undefined) return reject(new Error(`wrk printed no summary:\n${stdout}`));
      const summary = JSON.parse(line.slice(4)) as {
        requests: number;
        durationUs: number;
        errors: number;
        p50Us: number;
        p99Us: number;
      };
      resolve({
        requestsPerSecond: summary.requests / (summary.durationUs / 1e6),
        p50Ms: summary.p50Us / 1000,
        p99Ms: summary.p99Us / 1000,
        requests: summary.requests,
        errors: summary.errors,
      });
    });
  });
}
