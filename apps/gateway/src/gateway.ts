import type { IncomingMessage, ServerResponse } from 'node:http';
import { type A2AHttpServer, createA2AHttpServer } from '@agentport/a2a-http';
import { type A2ASdkServer, AGENT_CARD_ROUTE, createA2ASdkServer } from '@agentport/a2a-sdk';
import { createCompatApp, createRunner } from '@agentport/compat';
import {
  type Agent,
  type AgentFailureListener,
  AgentNotFoundError,
  createMemoryTaskStore,
  observeFailures,
} from '@agentport/core';
import {
  createRestServer,
  DEFAULT_MAX_BODY_BYTES,
  errorResponse,
  incomingHeader,
  jsonErrorHandler,
  jsonNotFoundHandler,
  methodNotAllowed,
  parseQuery,
  RouteNotFoundError,
  refuseDotSegments,
  ShuttingDownError,
} from '@agentport/rest-sse';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import type { Logger } from 'pino';
import { accessLog, closedStatus, logRequest } from './access-log.ts';
import { assertOneAgentPerName } from './agent-names.ts';
import { apiKeyAuth, createKeyCheck, isPublicPath, nodeAuthorization } from './auth.ts';
import { renderDocsPage } from './docs-page.ts';
import { createNodeRoute, mayTakeOnNode } from './node-routes.ts';
import { createOpenApiDocument, listRoutes } from './openapi.ts';
import { chooseRequestId, REQUEST_ID_HEADER, requestIds } from './request-id.ts';
import { describeRoute, rootCardQuerySchema } from './route-docs.ts';

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
  version?: string;
  /**
   * How the official SDK surface answers a blocking SendMessage that starts a new task: `'task'`
   * (default, a stored Task) or `'message'` (a Message, nothing stored; failures still answer
   * with the failed Task). See `@agentport/a2a-sdk`'s `replyWith`.
   */
  a2aReplyWith?: 'task' | 'message';
}

/** A composed gateway: its Hono app and its shutdown controls. */
export interface Gateway {
  readonly app: Hono;
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

const OPS_ROUTES = ['/healthz', '/readyz', '/openapi.json', '/docs'];

/**
 * Every route the gateway answers: the app's own, plus the REST/SSE routes of each agent (the
 * REST server matches agent names itself, under one catch-all route).
 */
export function documentedRoutes(
  app: Hono,
  agents: readonly Agent[],
): Array<{ method: string; path: string }> {
  return [
    ...listRoutes(app),
    { method: 'GET', path: '/agents' },
    ...agents.flatMap((agent) => [
      { method: 'GET', path: `/agents/${agent.name}` },
      { method: 'POST', path: `/agents/${agent.name}/invoke` },
      { method: 'POST', path: `/agents/${agent.name}/stream` },
    ]),
  ];
}

/** The URLs of one agent on every surface, relative to the gateway's base URL. */
export function agentUrls(base: string, name: string, isDefault: boolean) {
  return {
    a2a: `${base}/agents/${name}/.well-known/agent.json`,
    ...(isDefault ? { a2aDefault: `${base}/.well-known/agent.json` } : {}),
    invoke: `${base}/agents/${name}/invoke`,
    stream: `${base}/agents/${name}/stream`,
    a2aSdkCard: `${base}/a2a/${name}${AGENT_CARD_ROUTE}`,
    a2aSdkJsonRpc: `${base}/a2a/${name}/jsonrpc`,
    a2aSdkRest: `${base}/a2a/${name}/rest`,
    compat: `${base}/compat/agents/${name}`,
  };
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

/**
 * Composes every surface for every agent on one Hono app, following the route map in
 * ARCHITECTURE.md.
 *
 * @example
 * const gateway = createGateway({ agents: createBuiltinAgents(), defaultAgent: 'assistant', publicUrl });
 * serve({ fetch: gateway.app.fetch, port: 8080 });
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { defaultAgent, publicUrl, logger: failureLog } = options;
  assertOneAgentPerName(options.agents);
  // With a logger, every failed run is logged with its cause, which callers are never told.
  // One listener for all, so that a handoff target reached from several agents is one agent.
  const onFailure = failureLog === undefined ? undefined : logFailure(failureLog);
  const agents =
    onFailure === undefined
      ? options.agents
      : options.agents.map((agent) => observeFailures(agent, onFailure));
  const byName = new Map(agents.map((agent) => [agent.name, agent]));
  if (!byName.has(defaultAgent)) throw new AgentNotFoundError(defaultAgent);
  let shuttingDown = false;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  const store = createMemoryTaskStore();
  const a2aHttp = new Map<string, A2AHttpServer>();
  const a2aSdk = new Map<string, A2ASdkServer>();
  const rest = createRestServer({
    maxBodyBytes,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
  });
  const secured = (options.apiKeys?.length ?? 0) > 0;
  const handRolledSecurity = secured
    ? {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
        security: [{ bearer: [] }, { apiKey: [] }] as Array<Record<string, string[]>>,
      }
    : {};
  for (const agent of agents) {
    a2aHttp.set(
      agent.name,
      createA2AHttpServer({
        agent,
        store,
        // Cards name the configured address, never the Host a client sends.
        publicUrl,
        card: { version: options.version ?? '0.1.0', ...handRolledSecurity },
        ...(options.maxConcurrency === undefined ? {} : { maxConcurrency: options.maxConcurrency }),
        maxBodyBytes,
        ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
      }),
    );
    a2aSdk.set(
      agent.name,
      createA2ASdkServer(
        agent,
        {
          name: agent.name,
          version: options.version ?? '0.1.0',
          description: agent.description ?? `The ${agent.name} agent`,
          url: `${publicUrl}/a2a/${agent.name}`,
        },
        {
          bodyLimit: maxBodyBytes,
          ...(secured
            ? { bearerAuth: { description: 'An AgentPort API key', apiKeyHeader: 'X-API-Key' } }
            : {}),
          ...(options.a2aReplyWith === undefined ? {} : { replyWith: options.a2aReplyWith }),
          ...(options.maxConcurrency === undefined
            ? {}
            : { maxConcurrency: options.maxConcurrency }),
        },
      ),
    );
    rest.register(agent.name, agent);
  }
  const closing = new AbortController();
  const compat = createCompatApp({
    runner: createRunner(...agents),
    shutdownSignal: closing.signal,
    maxBodyBytes,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
  });

  // A trailing slash names the same route, as on Express (and the SDK's Express adapters).
  const app = new Hono({ strict: false });
  app.onError(jsonErrorHandler);
  app.notFound(jsonNotFoundHandler);
  app.use(requestIds());
  if (options.logger !== undefined) app.use(accessLog(options.logger));
  if (Array.isArray(options.cors)) {
    // The answer depends on the Origin: said before the handler runs, since a stream writes its
    // head then, before cors's own `Vary` (added once the handler returns); kept once in the end.
    app.use(async (context, next) => {
      context.header('Vary', 'Origin', { append: true });
      await next();
      const vary = context.res.headers.get('Vary');
      if (vary !== null)
        context.res.headers.set('Vary', [...new Set(vary.split(/\s*,\s*/))].join(', '));
    });
  }
  if (options.cors !== undefined && options.cors !== false) {
    const corsHeaders = cors({
      origin: options.cors === true ? '*' : options.cors,
      // What some route answers (DELETE: the SDK's push-config routes); none takes PUT or PATCH.
      allowMethods: ['GET', 'HEAD', 'POST', 'DELETE'],
      // A page reads the request id of any answer, and where a created task lives.
      exposeHeaders: ['X-Request-Id', 'Location'],
    });
    // hono/cors answers every OPTIONS as a preflight; one that is not (no
    // Access-Control-Request-Method) goes on to auth and the routes, as with CORS off.
    app.use((context, next) =>
      context.req.method === 'OPTIONS' &&
      context.req.header('access-control-request-method') === undefined
        ? next()
        : corsHeaders(context, next),
    );
  }
  // While shutting down, every answer closes its connection: the listener is closed and the
  // connection is next, so a client should not send another request on it.
  app.use(async (context, next) => {
    if (shuttingDown && !OPS_ROUTES.includes(context.req.path)) {
      const refused = errorResponse(new ShuttingDownError());
      refused.headers.set('connection', 'close');
      return refused;
    }
    await next();
    if (shuttingDown && !context.res.headers.has('connection')) {
      context.res.headers.set('connection', 'close');
    }
  });
  // A dot segment names nothing: URL parsing resolved `/agents/ticker/../echo/invoke` to echo's
  // route, behind the back of a proxy in front that matched the path as sent. (Never on the Node
  // fast path, whose routes match the path as sent, exactly.)
  app.use(refuseDotSegments());
  if (options.apiKeys !== undefined && options.apiKeys.length > 0)
    app.use(apiKeyAuth(options.apiKeys));

  app.get('/healthz', (context) => context.json({ status: 'ok' }));
  app.get('/readyz', (context) =>
    shuttingDown ? errorResponse(new ShuttingDownError()) : context.json({ status: 'ready' }),
  );
  // Every URL in it is on publicUrl, so it is the same for every request.
  const index = {
    name: 'AgentPort',
    defaultAgent,
    agents: agents.map((agent) => ({
      name: agent.name,
      description: agent.description,
      tools: agent.tools.map((tool) => tool.name),
      urls: agentUrls(publicUrl, agent.name, agent.name === defaultAgent),
    })),
    compat: `${publicUrl}/compat/agents`,
    openapi: `${publicUrl}/openapi.json`,
    docs: `${publicUrl}/docs`,
  };
  app.get('/', (context) => context.json(index));

  app.get(AGENT_CARD_ROUTE, (context) => {
    const name = parseQuery(context.req.query(), rootCardQuerySchema).agent ?? defaultAgent;
    const server = a2aSdk.get(name);
    if (server === undefined) return errorResponse(new AgentNotFoundError(name));
    return server.app.request(AGENT_CARD_ROUTE, { headers: context.req.raw.headers });
  });
  // The SDK's cards are read-only, as the hand-rolled ones are: 405 with Allow, not 404.
  app.all(AGENT_CARD_ROUTE, methodNotAllowed(['GET', 'HEAD']));

  app.route('/', (a2aHttp.get(defaultAgent) as A2AHttpServer).app);
  for (const [name, server] of a2aHttp) app.route(`/agents/${name}`, server.app);
  for (const [name, server] of a2aSdk) {
    app.route(`/a2a/${name}`, server.app);
    app.all(`/a2a/${name}${AGENT_CARD_ROUTE}`, methodNotAllowed(['GET', 'HEAD']));
  }
  // Paths under an agent name no mount took. The gateway's names are flat: an unknown one is named
  // in `agent_not_found`, an unknown path under a served one is `not_found` (rest-sse alone reads
  // the whole path as a nested name). A served agent's invoke and stream go on to rest-sse.
  const unserved = (path: string, name: string) =>
    errorResponse(byName.has(name) ? new RouteNotFoundError(path) : new AgentNotFoundError(name));
  app.all('/agents/:name/:tail{.+}', (context, next) => {
    const name = context.req.param('name');
    const tail = context.req.param('tail');
    if (byName.has(name) && (tail === 'invoke' || tail === 'stream')) return next();
    return unserved(context.req.path, name);
  });
  for (const path of ['/a2a/:name', '/a2a/:name/*']) {
    app.all(path, (context) => unserved(context.req.path, context.req.param('name') ?? ''));
  }
  app.route('/agents', rest.app);
  app.route('/compat', compat);

  let document: Record<string, unknown> | undefined;
  const serverPath = new URL(publicUrl).pathname.replace(/\/+$/, '');
  const openApi = () => {
    document ??= createOpenApiDocument(documentedRoutes(app, agents), describeRoute, {
      title: 'AgentPort gateway',
      version: options.version ?? '0.1.0',
      securityScheme: secured,
      isPublic: isPublicPath,
      serverPath,
    });
    return document;
  };
  app.get('/openapi.json', (context) => context.json(openApi()));
  app.get('/docs', (context) =>
    context.html(renderDocsPage(openApi(), `${serverPath}/openapi.json`)),
  );
  for (const path of ['/', ...OPS_ROUTES]) app.all(path, methodNotAllowed(['GET', 'HEAD']));

  const corsOn = options.cors !== undefined && options.cors !== false;
  const checkKey = secured ? createKeyCheck(options.apiKeys as string[]) : undefined;
  const { logger } = options;
  const answerOnNode = createNodeRoute({
    rest,
    a2aHttp,
    defaultTasks: a2aHttp.get(defaultAgent) as A2AHttpServer,
    a2aSdk,
    shuttingDown: () => shuttingDown,
  });

  function handleNode(request: IncomingMessage, response: ServerResponse): boolean {
    const { url } = request;
    // CORS headers, 503s and 401s come from the app's middleware: those requests go there.
    if (shuttingDown || corsOn || url === undefined || request.method !== 'POST') return false;
    // Every other route leaves before any work (a key digest, a request id).
    const mark = url.indexOf('?');
    const path = mark === -1 ? url : url.slice(0, mark);
    if (!mayTakeOnNode(path)) return false;
    if (
      checkKey?.(nodeAuthorization(request), incomingHeader(request, 'x-api-key')).valid === false
    ) {
      return false;
    }
    const started = logger === undefined ? 0 : performance.now();
    const requestId = chooseRequestId(incomingHeader(request, 'x-request-id'));
    if (!answerOnNode(request, response, url, { [REQUEST_ID_HEADER]: requestId })) return false;
    if (logger !== undefined) {
      const method = request.method;
      response.once('close', () =>
        logRequest(logger, { requestId, method, path, status: closedStatus(response), started }),
      );
    }
    return true;
  }

  return {
    app,
    agents,
    handleNode,
    get shuttingDown() {
      return shuttingDown;
    },
    async shutdown() {
      shuttingDown = true;
      rest.close();
      closing.abort();
      for (const server of a2aSdk.values()) server.close();
      await Promise.all([...a2aHttp.values()].map((server) => server.close()));
    },
  };
}
