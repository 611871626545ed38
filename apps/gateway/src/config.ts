import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Agent, isValidAgentName } from '@agentport/core';
import * as z from 'zod';

/** A remote A2A agent served by the gateway as if it were local. */
export interface RemoteAgentConfig {
  /** Its base URL (or card URL). */
  url: string;
  /** Which A2A flavour it speaks: the hand-rolled REST one or the official SDK one. */
  kind: 'a2a-http' | 'a2a-sdk';
  /**
   * The name to serve it under. Without one, a name derived from its card; or, when its card
   * cannot be read at start, one derived from its URL (the path segment before `.well-known`,
   * else the last one, else the host's first label), which it keeps once its card is read.
   */
  name?: string | undefined;
  /** An API key sent as `Authorization: Bearer` to the remote. */
  apiKey?: string | undefined;
  /**
   * `a2a-http` remotes only: how long a remote task's events stream may send nothing, not even a
   * heartbeat, before the agent long-polls the task instead, in ms (default 60,000).
   */
  idleTimeoutMs?: number | undefined;
}

/** Everything the gateway can be configured with; every field is optional. */
export interface GatewayConfig {
  /** Your own agents, built with `@agentport/core`. */
  agents?: Agent[];
  /** Whether to serve the built-in `assistant`, `echo` and `ticker` agents (default true). */
  builtins?: boolean;
  /** The agent served at the root (default `assistant`, or the first agent). */
  defaultAgent?: string;
  /**
   * Remote A2A agents to serve on every surface. One whose card cannot be read at start (down,
   * a timeout, a 5xx, no valid card yet) does not stop the gateway: it answers 503
   * `remote_unavailable` on every surface while the gateway retries it in the background (1 s,
   * doubling up to 60 s, with jitter), and `/readyz` lists it.
   */
  remotes?: RemoteAgentConfig[];
  /**
   * Whether `/readyz` answers 503 `remote_unavailable` while any remote agent is unavailable
   * (default false: 200 `{"status":"degraded","unavailable":[...]}`).
   */
  requireRemotes?: boolean;
  /** Port (default 8080; `PORT` and `--port` override). */
  port?: number;
  /** Address to bind (default 127.0.0.1; `HOST` and `--host` override). */
  host?: string;
  /** The public base URL advertised in agent cards (default: the listen address). */
  publicUrl?: string;
  /** API keys (`X-API-Key` or `Authorization: Bearer`); when set, routes need one. */
  apiKeys?: string[];
  /** CORS: `true` allows any origin, or list the allowed origins (default off). */
  cors?: boolean | string[];
  /** How long in-flight work may take to finish on shutdown, in ms (default 10,000). */
  shutdownTimeoutMs?: number;
  /**
   * How long a request may take to arrive, headers and body, in ms (default 30,000; 0 for no
   * limit): one still arriving then gets a 408 `request_timeout` and its connection is closed.
   * Only arrival is timed: long-polls and streams may answer for longer.
   */
  requestTimeoutMs?: number;
  /**
   * How long an idle kept-alive connection is kept for its next request, in ms (default 5,000,
   * as Node's; 0 keeps idle connections open). Advertised in `Keep-Alive: timeout=N`; the
   * connection is closed a fifth of it later (at most about 1 s later, as Node does). Behind a
   * load balancer, set it above the balancer's idle timeout.
   */
  keepAliveTimeoutMs?: number;
  /**
   * How many runs each agent makes at once on each A2A surface, the hand-rolled tasks
   * (`/agents/{name}/tasks`) and the official SDK's (`/a2a/{name}`); the rest wait their turn, a
   * task in `submitted` (default 16). REST invokes and streams and compat runs are not queued:
   * each runs as its request arrives.
   */
  maxConcurrency?: number;
  /** Request body limit in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * How long a REST or compat stream's run goes on once its caller has left, waiting for a
   * reader to rejoin it, in milliseconds (default 10 s); 0 cancels it at once.
   */
  rejoinGraceMs?: number;
  /**
   * How the official SDK surface answers a blocking SendMessage that starts a task: `task`
   * (default) or `message` (a Message, no task stored; failures still answer with a Task).
   */
  a2aReplyWith?: 'task' | 'message';
  /**
   * Where tasks, their event logs and conversations are kept: `{ postgres: { url, schema? } }`
   * for PostgreSQL, shared by every replica on the same database (`schema` default `agentport`).
   * Without it the stores are in this process's memory, unless `DATABASE_URL` is set, which
   * stands for `{ postgres: { url: DATABASE_URL } }`.
   */
  store?: { postgres: PostgresStoreConfig };
  /** Log level for the pino access log (default info; `silent` turns it off). */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

/** The PostgreSQL database of the gateway's stores. */
export interface PostgresStoreConfig {
  /** A `postgres://` (or `postgresql://`) connection URL. */
  url: string;
  /** The schema its tables are in (default `agentport`), created by the gateway's migrations. */
  schema?: string;
  /**
   * How long a replica's lease on a task it runs lasts unrenewed, in milliseconds (default
   * 30,000): a task whose replica died ends `failed` (`worker_lost`) about this long after.
   */
  leaseMs?: number;
}

/** Identity helper that types an `agentport.config.ts` default export. */
export function defineConfig(config: GatewayConfig): GatewayConfig {
  return config;
}

const agentSchema = z.custom<Agent>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Agent).name === 'string' &&
    Array.isArray((value as Agent).tools) &&
    Array.isArray((value as Agent).handoffs) &&
    typeof (value as Agent).invoke === 'function' &&
    typeof (value as Agent).stream === 'function',
  {
    message: 'must be an agent built with @agentport/core (name, tools, handoffs, invoke, stream)',
  },
);

/** What goes in an HTTP header as a key: visible ASCII, no spaces (a bearer token's charset). */
const API_KEY = /^[\x21-\x7e]+$/;

/** The longest delay a Node timer keeps; a longer one fires after 1 ms (with a warning). */
const MAX_TIMER_MS = 2_147_483_647;

/** Whether a URL holds a user name or password. */
function hasCredentials(url: string): boolean {
  const { username, password } = new URL(url);
  return username !== '' || password !== '';
}

/** An http(s) base URL: a query or a fragment would end up in the middle of every URL made on it. */
const baseUrlSchema = z
  .url({ protocol: /^https?$/ })
  .refine(
    (url) => {
      if (!URL.canParse(url)) return true; // said by the url check
      const { search, hash } = new URL(url);
      return search === '' && hash === '';
    },
    { message: 'must not have a query or a fragment' },
  )
  // It is published (cards, the banner): a user name or password in it would be too.
  .refine((url) => !URL.canParse(url) || !hasCredentials(url), {
    message: 'must not hold a user name or password',
  });

/**
 * A CORS origin as browsers send it in `Origin`, `https://app.example.com` (no path, no trailing
 * slash): anything else would never match.
 */
const originSchema = z
  .string()
  .refine((origin) => URL.canParse(origin) && new URL(origin).origin === origin, {
    message: "must be an origin such as 'https://app.example.com' (use cors: true for any origin)",
  });

const configSchema = z.strictObject({
  agents: z.array(agentSchema).optional(),
  builtins: z.boolean().optional(),
  defaultAgent: z.string().min(1).optional(),
  remotes: z
    .array(
      z
        .strictObject({
          url: z
            .url({ protocol: /^https?$/ })
            .refine((url) => !URL.canParse(url) || !hasCredentials(url), {
              message: 'must not hold a user name or password (give apiKey instead)',
            }),
          kind: z.enum(['a2a-http', 'a2a-sdk']).default('a2a-http'),
          name: z
            .string()
            .refine(isValidAgentName, "must be 1 to 64 lower-case letters, digits, '-' or '_'")
            .optional(),
          apiKey: z
            .string()
            .regex(
              API_KEY,
              'must be visible ASCII characters without spaces (a newline read from a file?)',
            )
            .optional(),
          idleTimeoutMs: z.number().positive().optional(),
        })
        .refine((remote) => remote.kind === 'a2a-http' || remote.idleTimeoutMs === undefined, {
          message: 'applies to a2a-http remotes only',
          path: ['idleTimeoutMs'],
        }),
    )
    .optional(),
  requireRemotes: z.boolean().optional(),
  port: z.number().int().min(0).max(65_535).optional(),
  host: z.string().min(1).optional(),
  publicUrl: baseUrlSchema.optional(),
  apiKeys: z
    .array(
      z
        .string()
        .min(16, 'API keys must be at least 16 characters')
        .regex(API_KEY, 'API keys must be visible ASCII characters without spaces'),
    )
    .optional(),
  cors: z.union([z.boolean(), z.array(originSchema)]).optional(),
  shutdownTimeoutMs: z
    .number()
    .int()
    .min(0)
    .max(MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS} (about 24.8 days)`)
    .optional(),
  requestTimeoutMs: z
    .number()
    .int()
    .min(0)
    .max(MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS} (about 24.8 days)`)
    .optional(),
  keepAliveTimeoutMs: z
    .number()
    .int()
    .min(0)
    .max(MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS} (about 24.8 days)`)
    .optional(),
  maxConcurrency: z.number().int().min(1).optional(),
  maxBodyBytes: z.number().int().min(1).optional(),
  rejoinGraceMs: z
    .number()
    .int()
    .min(0)
    .max(MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS} (about 24.8 days)`)
    .optional(),
  a2aReplyWith: z.enum(['task', 'message']).optional(),
  store: z
    .object({
      postgres: z
        .object({
          url: z.url({ protocol: /^postgres(ql)?$/, message: 'must be a postgres:// URL' }),
          schema: z
            .string()
            .regex(
              /^[a-z_][a-z0-9_]{0,47}$/,
              'must be a lower-case SQL name of at most 48 characters (letters, digits, _)',
            )
            .optional(),
          leaseMs: z.number().int().min(100).max(MAX_TIMER_MS).optional(),
        })
        .strict(),
    })
    .strict()
    .optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
});

/** The configuration is invalid; the message names the field. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Validates a configuration object, throwing a {@link ConfigError} naming the first bad field. */
export function validateConfig(config: unknown): GatewayConfig {
  const result = configSchema.safeParse(config);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path.join('.') || '(root)';
    throw new ConfigError(`Invalid config: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  return result.data as GatewayConfig;
}

/** The config files looked up in the working directory, in this order, when none is named. */
export const DEFAULT_CONFIG_FILES = [
  'agentport.config.ts',
  'agentport.config.mts',
  'agentport.config.js',
  'agentport.config.mjs',
] as const;

/** The first of {@link DEFAULT_CONFIG_FILES} that exists in `directory`, if any. */
export function findConfigFile(directory: string): string | undefined {
  return DEFAULT_CONFIG_FILES.map((name) => resolve(directory, name)).find((file) =>
    existsSync(file),
  );
}

/** What to do about a config module Node could not load, when its message says. */
function loadHint(file: string, message: string): string {
  // Node reads a .ts or .js file as CommonJS under a package.json of type commonjs.
  if (/Cannot use import statement outside a module/.test(message)) {
    const module = file.endsWith('.js') ? '.mjs' : '.mts';
    return ` (name the file ${module}, or put "type": "module" in the package.json next to it)`;
  }
  // The one-file artifact brings no packages along for its config to import.
  if (/Cannot find package '@agentport\//.test(message)) {
    return ' (install @agentport/gateway and @agentport/core next to the config; a config for the bundled artifact can import only node: modules: export a plain object)';
  }
  return '';
}

/**
 * Loads and validates a config module (its default export); with no path, the first of
 * {@link DEFAULT_CONFIG_FILES} in the working directory, else the empty (embedded default) config.
 */
export async function loadConfig(path?: string): Promise<GatewayConfig> {
  // Relative to the current folder, as every command-line tool reads a path (not INIT_CWD, which a
  // package manager sets for its script and every process that script starts inherits).
  const file = path === undefined ? findConfigFile(process.cwd()) : resolve(process.cwd(), path);
  if (file === undefined) return {};
  const shown = path ?? basename(file);
  if (!existsSync(file)) throw new ConfigError(`Config file not found: ${shown}`);
  let loaded: { default?: unknown };
  try {
    loaded = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    const { message } = error as Error;
    throw new ConfigError(`Cannot load config ${shown}: ${message}${loadHint(file, message)}`);
  }
  if (loaded.default === undefined) {
    throw new ConfigError(`Config ${shown} has no default export`);
  }
  // A module may export a promise of its config (one it builds asynchronously).
  let exported: unknown;
  try {
    exported = await loaded.default;
  } catch (error) {
    throw new ConfigError(`Cannot load config ${shown}: ${(error as Error).message}`);
  }
  return validateConfig(exported);
}
