import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type Agent,
  type AgentFailureListener,
  AgentNotFoundError,
  type ConversationStore,
  DuplicateAgentError,
  observeFailures,
  type TaskStore,
} from '@agentport/core';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import { assertOneAgentPerName } from './agent-names.ts';
import { createAgentServers } from './agent-servers.ts';
import { createGatewayApp } from './gateway-app.ts';
import { createNodeHandler, createNodeRoute } from './node-routes.ts';
import {
  type RemoteRetries,
  type RemoteRetryOptions,
  retryRemotes,
  type UnavailableRemote,
} from './remote-retries.ts';

export { agentUrls, documentedRoutes } from './gateway-app.ts';

/** Options of {@link createGateway}. */
export interface GatewayOptions {
  /** Every agent to serve (local and remote), with unique names. */
  agents: Agent[];
  /** The agent served at the root. */
  defaultAgent: string;
  /**
   * The public base URL (no trailing slash): every agent card and the index at `/` give URLs on
   * it, whatever `Host` a request names.
   */
  publicUrl: string;
  apiKeys?: string[];
  cors?: boolean | string[];
  logger?: Logger;
  /**
   * How many A2A tasks each agent runs at once on each A2A surface, hand-rolled and SDK (default
   * 16); see the README.
   */
  maxConcurrency?: number;
  /** The largest request body on every surface, SDK surface included, in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  heartbeatMs?: number;
  /**
   * How long a REST or compat stream's run goes on once its caller has left, for a reader to
   * rejoin it (default 10 s; 0 cancels it at once).
   */
  rejoinGraceMs?: number;
  /**
   * Where every surface keeps its conversations (by `contextId`, shared by all agents, each
   * conversation owned by one): default a new in-memory store, bounded (see `@agentport/core`).
   */
  conversations?: ConversationStore;
  /**
   * Where every surface keeps its tasks and their event logs (default a new in-memory store,
   * bounded; see `@agentport/core`): a shared durable store (`@agentport/postgres`) lets several
   * gateways serve, stream and cancel each other's tasks.
   */
  store?: TaskStore;
  /**
   * Whether those stores answer now (a database's): `/readyz` answers 503 `store_unavailable`
   * while it resolves false.
   */
  storesReady?: () => Promise<boolean>;
  /**
   * Whether each agent's A2A runner also runs the tasks other gateways left `submitted` in a
   * shared `store` while it has free slots (default false; `agentport serve` on a database: true).
   */
  claimTasks?: boolean;
  version?: string;
  /**
   * How the official SDK surface answers a blocking SendMessage that starts a new task: `'task'`
   * (default, a stored Task) or `'message'` (a Message, nothing stored; failures still answer
   * with the failed Task). See `@agentport/a2a-sdk`'s `replyWith`.
   */
  a2aReplyWith?: 'task' | 'message';
  /**
   * Remote agents that could not be reached at start (`resolveAgents` gives them): each is
   * served under its name, every request for it answered 503 `remote_unavailable`, while the
   * gateway retries it in the background; once its card is read it is served as any agent.
   */
  unavailableRemotes?: UnavailableRemote[];
  /** The backoff of those retries (default 1 s, doubling up to 60 s, with jitter). */
  remoteRetry?: RemoteRetryOptions;
  /**
   * Whether `/readyz` answers 503 `remote_unavailable` while a remote agent is unavailable
   * (default false: 200 `degraded`, listing them).
   */
  requireRemotes?: boolean;
}

/** A composed gateway: its Hono app and its shutdown controls. */
export interface Gateway {
  readonly app: Hono;
  /** The agents served now: a remote agent unavailable at start is one once it is available. */
  readonly agents: readonly Agent[];
  /** Whether shutdown has begun (readyz answers 503, new work is refused). */
  readonly shuttingDown: boolean;
  /**
   * The Node fast path for `POST /agents/{name}/invoke`, `/stream` and `/tasks` (and the default
   * agent's `POST /tasks`), and for `POST /a2a/{name}/jsonrpc` (served by that agent's SDK app
   * alone): answers them on Node's request and response without the gateway's app, with the
   * same answers, request id, key check and access log line as `app`, and returns false for
   * anything else (and for every request while shutting down or with CORS on), which `app` then
   * serves. Give it to `listen` as `handleNode`; `agentport serve` does.
   */
  handleNode(request: IncomingMessage, response: ServerResponse): boolean;
  /** Starts shutting down: refuse new work, end open streams, cancel running tasks. */
  shutdown(): Promise<void>;
}

/**
 * What the gateway logs of a failed agent run: the failures that are the server's (status 500 and
 * up), at `error`, with the original error (stack included); a caller's bad input or a canceled run
 * is the caller's business and its answer says all there is.
 */
function logFailure(logger: Logger): AgentFailureListener {
  return (error, agent) => {
    if (error.status < 500) return;
    logger.error({ agent, code: error.code, err: error.cause ?? error }, 'agent run failed');
  };
}

/** The agent served in place of `agent`: with a failure listener, one that reports to it. */
function observed(onFailure: AgentFailureListener | undefined): (agent: Agent) => Agent {
  return (agent) => (onFailure === undefined ? agent : observeFailures(agent, onFailure));
}

/** Refuses an unavailable remote named as a served agent, and a default agent served by none. */
function assertNames(
  agents: readonly Agent[],
  unavailable: readonly UnavailableRemote[],
  defaultAgent: string,
): void {
  const names = new Set(agents.map((agent) => agent.name));
  for (const { name } of unavailable) {
    if (names.has(name)) throw new DuplicateAgentError(name);
    names.add(name);
  }
  if (!names.has(defaultAgent)) throw new AgentNotFoundError(defaultAgent);
}

/**
 * Composes every surface for every agent on one Hono app, following the route map in
 * ARCHITECTURE.md. Remote agents unavailable at start are answered 503 `remote_unavailable`
 * until a retry reaches them; each is then served as any agent, on an app composed again, to
 * which `app` hands every request from then on.
 *
 * @example
 * const gateway = createGateway({ agents: createBuiltinAgents(), defaultAgent: 'assistant', publicUrl });
 * serve({ fetch: gateway.app.fetch, port: 8080 });
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { defaultAgent, publicUrl, logger } = options;
  const unavailable = options.unavailableRemotes ?? [];
  assertOneAgentPerName(options.agents);
  assertNames(options.agents, unavailable, defaultAgent);
  // With a logger, every failed run is logged with its cause, which callers are never told.
  // One listener for all, so that a handoff target reached from several agents is one agent.
  const observe = observed(logger === undefined ? undefined : logFailure(logger));
  let agents = options.agents.map(observe);
  let shuttingDown = false;
  const isShuttingDown = () => shuttingDown;
  const closing = new AbortController();
  let remotes: RemoteRetries | undefined;
  const servers = createAgentServers(agents, {
    publicUrl,
    secured: (options.apiKeys?.length ?? 0) > 0,
    maxConcurrency: options.maxConcurrency,
    maxBodyBytes: options.maxBodyBytes,
    heartbeatMs: options.heartbeatMs,
    rejoinGraceMs: options.rejoinGraceMs,
    conversations: options.conversations,
    store: options.store,
    claimTasks: options.claimTasks,
    version: options.version,
    a2aReplyWith: options.a2aReplyWith,
    shutdownSignal: closing.signal,
    unavailable: (name) => remotes?.unavailable(name),
  });

  const composeApp = () =>
    createGatewayApp({ ...options, agents, servers, remotes, shuttingDown: isShuttingDown });
  const composeNodeRoute = () =>
    createNodeRoute({
      rest: servers.rest,
      a2aHttp: servers.a2aHttp,
      defaultTasks: servers.a2aHttp.get(defaultAgent),
      a2aSdk: servers.a2aSdk,
      shuttingDown: isShuttingDown,
    });
  if (unavailable.length > 0) {
    remotes = retryRemotes(unavailable, {
      ...options.remoteRetry,
      logger,
      onAvailable(agent) {
        const served = observe(agent);
        servers.add(served);
        agents = [...agents, served];
        composed = composeApp();
        answerOnNode = composeNodeRoute();
      },
    });
  }
  let composed = composeApp();
  let answerOnNode = composeNodeRoute();
  // Hono's routes are fixed once an app has answered: while remotes may still come, `app` hands
  // each request to the app composed last (its Node bindings with it).
  const app =
    remotes === undefined
      ? composed
      : new Hono().all('*', (context) => composed.fetch(context.req.raw, context.env));

  const handleNode = createNodeHandler(options, () => answerOnNode, isShuttingDown);

  return {
    app,
    get agents() {
      return agents;
    },
    handleNode,
    get shuttingDown() {
      return shuttingDown;
    },
    async shutdown() {
      shuttingDown = true;
      remotes?.stop();
      closing.abort();
      await servers.close();
    },
  };
}
