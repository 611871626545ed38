import { createA2AHttpClient } from '@agentport/a2a-http';
import { agentCardUrlOf } from '@agentport/a2a-sdk';
import { type Agent, InvalidInputError } from '@agentport/core';
import { errorFromEvent } from '@agentport/core/internal';
import { type ListenAddress, type ListenOptions, listen } from '@agentport/http/node';
import { type Logger, pino } from 'pino';
import { type GatewayConfig, validateConfig } from './config.ts';
import { routeConsoleToLog } from './console-log.ts';
import { agentUrls, createGateway, type Gateway, type GatewayOptions } from './gateway.ts';
import { connectAgentUrl, shownUrl } from './remote-call.ts';
import { type ResolvedAgents, resolveAgents } from './resolve-agents.ts';
import { openServeStores, type ServeStores } from './serve-stores.ts';

function pick(...values: Array<string | number | undefined>): string | undefined {
  for (const value of values) if (value !== undefined && value !== '') return String(value);
  return undefined;
}

/** A port as it is written: decimal digits (`Number` would also read `0x1F90` or `8e3`). */
const DECIMAL_PORT = /^\d{1,5}$/;

/** The levels `LOG_LEVEL` may name (pino's). */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * How soon after a stop signal the same or another one counts as a repeat of it, not a second
 * request to stop. Ctrl-C in a terminal signals the whole process group, and a process manager
 * in it (`pnpm start`) forwards the signal to its child as well: the gateway gets two SIGINTs a
 * few milliseconds apart for one Ctrl-C.
 */
const REPEATED_SIGNAL_MS = 250;

/**
 * Listens to stop signals: `first` for the first one, `again` for one that comes later than
 * {@link REPEATED_SIGNAL_MS} after it (those sooner are ignored), until the process exits.
 */
function onStopSignals(
  signals: readonly NodeJS.Signals[],
  first: (signal: NodeJS.Signals) => void,
  again: (signal: NodeJS.Signals) => void,
): void {
  let firstAt: number | undefined;
  const listener = (signal: NodeJS.Signals) => {
    const now = performance.now();
    if (firstAt === undefined) {
      firstAt = now;
      first(signal);
    } else if (now - firstAt >= REPEATED_SIGNAL_MS) {
      again(signal);
    }
  };
  for (const signal of signals) process.on(signal, listener);
}

/** The command-line flags of `serve`. */
interface ServeFlags {
  port?: string | undefined;
  host?: string | undefined;
  /** The config file served, named in the banner. */
  configFile?: string;
}

/** How `serve` logs and where it listens, from its flags, the environment and the config. */
interface ServeSettings {
  level: string;
  port: number;
  hostname: string;
  /** The public URL set (`PUBLIC_URL`, else the config's `publicUrl`), if any. */
  configuredUrl: string | undefined;
}

/** What `serve` composes its gateway from once it listens. */
interface ServeContext {
  config: GatewayConfig;
  flags: ServeFlags;
  settings: ServeSettings;
  resolved: ResolvedAgents;
  logger: Logger;
  /** The database's stores, when the config names one (else the in-memory default). */
  stores: ServeStores | undefined;
}

/** The settings of `serve`, or undefined when one is invalid (having said which on stderr). */
function serveSettings(config: GatewayConfig, flags: ServeFlags): ServeSettings | undefined {
  const level = pick(process.env.LOG_LEVEL, config.logLevel) ?? 'info';
  if (!LOG_LEVELS.includes(level)) {
    process.stderr.write(`agentport: invalid LOG_LEVEL '${level}' (${LOG_LEVELS.join(', ')})\n`);
    return undefined;
  }
  // `--port=` given empty is a mistake, not a request for the default.
  const asked = flags.port === '' ? '' : pick(flags.port, process.env.PORT, config.port);
  const port = asked === undefined ? 8080 : DECIMAL_PORT.test(asked) ? Number(asked) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    process.stderr.write(`agentport: invalid port '${asked}'\n`);
    return undefined;
  }
  const hostname = pick(flags.host, process.env.HOST, config.host) ?? '127.0.0.1';
  const configuredUrl = pick(process.env.PUBLIC_URL, config.publicUrl);
  if (configuredUrl !== undefined && configuredUrl !== config.publicUrl) {
    try {
      validateConfig({ publicUrl: configuredUrl });
    } catch (error) {
      const reason = (error as Error).message.replace(/^Invalid config: publicUrl: /, '');
      process.stderr.write(`agentport: invalid PUBLIC_URL: ${reason}\n`);
      return undefined;
    }
  }
  return { level, port, hostname, configuredUrl };
}

/** How `serve` listens: its address, and the timeouts the config sets. */
function listenOptions(
  config: GatewayConfig,
  settings: ServeSettings,
  signal: AbortSignal,
): ListenOptions {
  return {
    port: settings.port,
    hostname: settings.hostname,
    signal,
    shutdownTimeoutMs: config.shutdownTimeoutMs ?? 10_000,
    ...(config.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: config.requestTimeoutMs }),
    ...(config.keepAliveTimeoutMs === undefined
      ? {}
      : { keepAliveTimeoutMs: config.keepAliveTimeoutMs }),
  };
}

/** The gateway's options: the resolved agents at `publicUrl`, with what the config sets. */
function gatewayOptions(context: ServeContext, publicUrl: string): GatewayOptions {
  const { config, resolved, logger } = context;
  return {
    agents: resolved.agents,
    defaultAgent: resolved.defaultAgent,
    publicUrl,
    logger,
    ...(config.apiKeys === undefined ? {} : { apiKeys: config.apiKeys }),
    ...(config.cors === undefined ? {} : { cors: config.cors }),
    ...(config.maxConcurrency === undefined ? {} : { maxConcurrency: config.maxConcurrency }),
    ...(config.maxBodyBytes === undefined ? {} : { maxBodyBytes: config.maxBodyBytes }),
    ...(config.rejoinGraceMs === undefined ? {} : { rejoinGraceMs: config.rejoinGraceMs }),
    ...(config.a2aReplyWith === undefined ? {} : { a2aReplyWith: config.a2aReplyWith }),
    unavailableRemotes: resolved.unavailableRemotes,
    ...(config.requireRemotes === undefined ? {} : { requireRemotes: config.requireRemotes }),
    ...context.stores?.options,
  };
}

/** Prints where the gateway listens (`local`), what it serves and where each surface is. */
function printBanner(context: ServeContext, local: string, publicUrl: string): void {
  const { flags, resolved } = context;
  const { defaultAgent } = resolved;
  const urls = agentUrls(publicUrl, defaultAgent, true);
  const served = [
    ...resolved.agents.map((agent) => agent.name),
    ...resolved.unavailableRemotes.map((remote) => `${remote.name} (unavailable)`),
  ];
  process.stdout.write(
    [
      `AgentPort gateway listening on ${local}`,
      ...(flags.configFile === undefined ? [] : [`  config              ${flags.configFile}`]),
      `  agents              ${served.join(', ')} (default: ${defaultAgent})`,
      `  A2A (hand-rolled)   ${urls.a2aDefault}`,
      `  A2A (official SDK)  ${publicUrl}/.well-known/agent-card.json  (JSON-RPC ${urls.a2aSdkJsonRpc})`,
      `  REST/SSE            ${publicUrl}/agents/{name}/invoke  and  ${publicUrl}/agents/{name}/stream`,
      `  OpenAI Agents       ${publicUrl}/compat/agents  and  POST ${publicUrl}/compat/runs`,
      `  Docs                ${publicUrl}/docs  (${publicUrl}/openapi.json)`,
      `  Health              ${publicUrl}/healthz  and  ${publicUrl}/readyz`,
      '',
    ].join('\n'),
  );
}

/** Composes the gateway once the server listens at `address`, and says where it is. */
function startGateway(context: ServeContext, { url, port }: ListenAddress): Gateway {
  const { configuredUrl } = context.settings;
  const local = /^http:\/\/(?:0\.0\.0\.0|\[::\])/.test(url) ? `http://127.0.0.1:${port}` : url;
  const publicUrl = (configuredUrl ?? local).replace(/\/+$/, '');
  const gateway = createGateway(gatewayOptions(context, publicUrl));
  printBanner(context, local, publicUrl);
  if (configuredUrl === undefined && local !== url) {
    // Bound to every interface (a container): the cards would send other hosts to loopback.
    process.stderr.write(
      `agentport: listening on every interface without publicUrl (or PUBLIC_URL): the agent cards name ${local}, which only this host can reach\n`,
    );
  }
  return gateway;
}

/** Starts the gateway and serves until SIGINT or SIGTERM; resolves with the exit code. */
export async function serve(config: GatewayConfig, flags: ServeFlags): Promise<number> {
  const settings = serveSettings(config, flags);
  if (settings === undefined) return 1;
  const logger = pino({ level: settings.level });
  // A remote that cannot be reached yet does not stop the gateway: it answers 503 until it can.
  const resolved = await resolveAgents(config, { unreachable: 'defer' });
  const controller = new AbortController();
  // A database that cannot be reached yet is waited for: nothing is served before its schema is.
  const waiting = new AbortController();
  const stopWaiting = () => waiting.abort();
  process.once('SIGINT', stopWaiting).once('SIGTERM', stopWaiting);
  const retried = resolved.agents.filter((agent) => agent.retrySafe === true);
  const stores = await openServeStores(
    config,
    logger,
    waiting.signal,
    retried.map((agent) => agent.name),
  );
  process.off('SIGINT', stopWaiting).off('SIGTERM', stopWaiting);
  if (waiting.signal.aborted) return INTERRUPTED;
  const context: ServeContext = { config, flags, settings, resolved, logger, stores };
  // Libraries' console output (the SDK's warnings) goes into the JSON log too.
  const restoreConsole = routeConsoleToLog(logger);
  let gateway: Gateway | undefined;
  const stopped = listen(
    // Pass the Node bindings on: SSE then writes straight to the socket, request ids to the response.
    { fetch: (request: Request, env?: unknown) => (gateway as Gateway).app.fetch(request, env) },
    {
      ...listenOptions(config, settings, controller.signal),
      // Invokes, streams and task creates are answered on Node's own request and response.
      handleNode: (request, response) => gateway?.handleNode(request, response) ?? false,
      onListen: (address) => {
        gateway = startGateway(context, address);
      },
    },
  );
  // The first SIGINT or SIGTERM shuts down gracefully; a second one, of either kind, does not
  // wait for what is still in flight: the process exits at once with 1. Listened to until the
  // process exits, as for `call`: a repeat of the first signal (pnpm's copy of a Ctrl-C) landing
  // after the server has stopped must not end the process by the signal.
  onStopSignals(
    ['SIGINT', 'SIGTERM'],
    (signal) => {
      logger.info({ signal }, 'shutting down');
      void (gateway?.shutdown() ?? Promise.resolve()).finally(() => controller.abort());
    },
    (signal) => {
      logger.warn({ signal }, 'stopping now, without waiting for requests in flight');
      logger.flush();
      process.exit(1);
    },
  );
  try {
    await stopped;
  } finally {
    await stores?.close();
    restoreConsole();
  }
  logger.info('stopped');
  return 0;
}

function findAgent(agents: Agent[], name: string): Agent | undefined {
  return agents.find((agent) => agent.name === name);
}

/** Prints the agents a config serves. */
export async function listAgents(config: GatewayConfig): Promise<number> {
  const { agents, defaultAgent } = await resolveAgents(config);
  for (const agent of agents) {
    const tools = agent.tools.map((tool) => tool.name).join(', ');
    const marker = agent.name === defaultAgent ? ' (default)' : '';
    process.stdout.write(
      `${agent.name}${marker}${agent.description ? `: ${agent.description}` : ''}${tools ? ` [tools: ${tools}]` : ''}\n`,
    );
  }
  return 0;
}

/** The exit code of a command stopped by SIGINT (128 + its number), as shells report it. */
const INTERRUPTED = 130;

/** Runs one agent locally and prints its output (or every event as a JSON line); Ctrl-C exits 130. */
export async function call(
  config: GatewayConfig,
  name: string,
  input: string,
  stream: boolean,
): Promise<number> {
  const { agents } = await resolveAgents(config);
  const agent = findAgent(agents, name);
  if (agent === undefined) {
    process.stderr.write(`agentport: no agent named '${name}' (try: agentport agents)\n`);
    return 1;
  }
  return runInterruptibly(agent, input, stream);
}

/**
 * Runs the remote agent at a URL (an A2A card URL or a REST/SSE agent URL) as {@link call} runs a
 * local one; `AGENTPORT_API_KEY`, when set, goes with every request as a bearer token.
 */
export async function callUrl(url: string, input: string, stream: boolean): Promise<number> {
  const key = process.env.AGENTPORT_API_KEY;
  const agent = await connectAgentUrl(url, key ? { authorization: `Bearer ${key}` } : {});
  return runInterruptibly(agent, input, stream);
}

function runInterruptibly(agent: Agent, input: string, stream: boolean): Promise<number> {
  const controller = new AbortController();
  // Ctrl-C cancels the run; a second one ends the process at once. Listened to until the
  // process exits: the run's end comes before the cancel a remote agent then sends has gone out,
  // and a repeat of the first signal (from pnpm) must not end the process before it has.
  onStopSignals(
    ['SIGINT'],
    () => controller.abort(),
    () => process.exit(INTERRUPTED),
  );
  return runOnce(agent, input, stream, controller.signal);
}

async function runOnce(
  agent: Agent,
  input: string,
  stream: boolean,
  signal: AbortSignal,
): Promise<number> {
  if (!stream) {
    try {
      process.stdout.write(`${await agent.invoke(input, { signal })}\n`);
    } catch (error) {
      // Interrupted (Ctrl-C): the usual quiet end of a command stopped so, not a failure to explain.
      if (signal.aborted) return INTERRUPTED;
      throw error;
    }
    return 0;
  }
  for await (const event of agent.stream(input, { signal })) {
    process.stdout.write(`${JSON.stringify(event)}\n`);
    if (event.type === 'error') {
      if (signal.aborted) return INTERRUPTED;
      // As without --stream: the cause, which the event itself never carries.
      const cause = errorFromEvent(event, agent.name).cause;
      if (cause instanceof Error) process.stderr.write(`caused by: ${cause.stack ?? cause}\n`);
      return 1;
    }
  }
  return 0;
}

/**
 * Whether a JSON document is an agent card of either flavour: a name, and where to reach the
 * agent (the hand-rolled `endpoint`, the v0.3 `url` or the v1.0 `supportedInterfaces`).
 */
function looksLikeCard(document: unknown): boolean {
  if (typeof document !== 'object' || document === null) return false;
  const card = document as Record<string, unknown>;
  return (
    typeof card.name === 'string' &&
    (typeof card.endpoint === 'string' ||
      typeof card.url === 'string' ||
      Array.isArray(card.supportedInterfaces))
  );
}

/** Fetches a remote agent card (hand-rolled `agent.json` or official `agent-card.json`) and prints it. */
export async function printCard(url: string): Promise<number> {
  const tried: string[] = [];
  const candidates = url.endsWith('.json') ? [url] : [agentCardUrlOf(url)];
  const { username, password } = new URL(candidates[0] as string);
  if (username !== '' || password !== '') {
    throw new InvalidInputError('The card URL must not contain credentials');
  }
  for (const candidate of candidates) {
    const response = await fetch(candidate, {
      headers: { accept: 'application/json', 'a2a-version': '1.0' },
    }).catch((error: unknown) => error as Error);
    if (response instanceof Response && response.ok) {
      const document = (await response.json().catch(() => undefined)) as unknown;
      if (looksLikeCard(document)) {
        process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
        return 0;
      }
      tried.push(
        `${shownUrl(candidate)}: not an agent card (no name and endpoint, url or interfaces)`,
      );
      continue;
    }
    tried.push(
      `${shownUrl(candidate)}: ${response instanceof Response ? `HTTP ${response.status}` : response.message}`,
    );
  }
  try {
    const card = await createA2AHttpClient({ baseUrl: url }).getCard();
    process.stdout.write(`${JSON.stringify(card, null, 2)}\n`);
    return 0;
  } catch (error) {
    tried.push((error as Error).message);
  }
  process.stderr.write(`agentport: no agent card found:\n  ${tried.join('\n  ')}\n`);
  return 1;
}
