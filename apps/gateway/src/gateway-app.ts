import { AGENT_CARD_PATH } from '@agentport/a2a-http';
import { AGENT_CARD_ROUTE } from '@agentport/a2a-sdk';
import {
  type Agent,
  AgentNotFoundError,
  type AgentPortError,
  StoreUnavailableError,
} from '@agentport/core';
import {
  errorResponse,
  jsonErrorHandler,
  jsonNotFoundHandler,
  methodNotAllowed,
  parseQuery,
  RouteNotFoundError,
  refuseDotSegments,
  ShuttingDownError,
} from '@agentport/http';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import type { Logger } from 'pino';
import { accessLog } from './access-log.ts';
import type { AgentServers } from './agent-servers.ts';
import { apiKeyAuth, isPublicPath } from './auth.ts';
import { renderDocsPage } from './docs-page.ts';
import { createOpenApiDocument, listRoutes } from './openapi.ts';
import type { RemoteRetries } from './remote-retries.ts';
import { requestIds } from './request-id.ts';
import { describeRoute, rootCardQuerySchema } from './route-docs.ts';

/** What the gateway's app is composed of: its options, the agents served now and their servers. */
export interface GatewayAppOptions {
  defaultAgent: string;
  publicUrl: string;
  apiKeys?: string[] | undefined;
  cors?: boolean | string[] | undefined;
  logger?: Logger | undefined;
  version?: string | undefined;
  /** Whether `/readyz` answers 503 while a remote agent is unavailable. */
  requireRemotes?: boolean | undefined;
  /** Whether the stores answer now: `/readyz` answers 503 `store_unavailable` while they do not. */
  storesReady?: (() => Promise<boolean>) | undefined;
  /** The agents served now (a remote becomes one once available). */
  agents: readonly Agent[];
  servers: AgentServers;
  /** The remote agents not available yet, when any was unavailable at start. */
  remotes?: RemoteRetries | undefined;
  shuttingDown(): boolean;
}

/** The paths that stay served while shutting down. */
export const OPS_ROUTES = ['/healthz', '/readyz', '/openapi.json', '/docs'];

/** The hand-rolled A2A routes of the default agent at the root, relative to its mount. */
const ROOT_A2A_ROUTES = [AGENT_CARD_PATH, '/tasks', '/tasks/*'];
/** Where rest-sse rejoins a stream, under an agent's path. */
const REJOIN_TAIL = /^tasks\/[^/]+\/stream$/;

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
      { method: 'GET', path: `/agents/${agent.name}/tasks/:id/stream` },
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

/** Request ids, the access log, CORS, the shutdown refusal, dot segments and API keys. */
function useMiddleware(app: Hono, options: GatewayAppOptions): void {
  const { shuttingDown } = options;
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
      // A page reads where a task is, where a stream is rejoined, and which conversation it is in.
      exposeHeaders: [
        'X-Request-Id',
        'Location',
        'Content-Location',
        'Context-Id',
        'Conversation-Id',
      ],
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
    if (shuttingDown() && !OPS_ROUTES.includes(context.req.path)) {
      const refused = errorResponse(new ShuttingDownError());
      refused.headers.set('connection', 'close');
      return refused;
    }
    await next();
    if (shuttingDown() && !context.res.headers.has('connection')) {
      context.res.headers.set('connection', 'close');
    }
  });
  // A dot segment names nothing: URL parsing resolved `/agents/ticker/../echo/invoke` to echo's
  // route, behind the back of a proxy in front that matched the path as sent. (Never on the Node
  // fast path, whose routes match the path as sent, exactly.)
  app.use(refuseDotSegments());
  if (options.apiKeys !== undefined && options.apiKeys.length > 0)
    app.use(apiKeyAuth(options.apiKeys));
}

/** `/healthz`, `/readyz` and the index at `/`. */
function addOperations(app: Hono, options: GatewayAppOptions): void {
  const { defaultAgent, publicUrl, agents, remotes } = options;
  app.get('/healthz', (context) => context.json({ status: 'ok' }));
  app.get('/readyz', async (context) => {
    if (options.shuttingDown()) return errorResponse(new ShuttingDownError());
    if (options.storesReady !== undefined && !(await options.storesReady())) {
      return errorResponse(new StoreUnavailableError());
    }
    const unavailable = remotes?.statuses() ?? [];
    const [first] = unavailable;
    if (first === undefined) return context.json({ status: 'ready' });
    if (options.requireRemotes === true) {
      return errorResponse(remotes?.unavailable(first.name));
    }
    return context.json({ status: 'degraded', unavailable });
  });
  // Every URL in it is on publicUrl, so it is the same for every request.
  const index = {
    name: 'AgentPort',
    defaultAgent,
    agents: [
      ...agents.map((agent) => ({
        name: agent.name,
        description: agent.description,
        tools: agent.tools.map((tool) => tool.name),
        urls: agentUrls(publicUrl, agent.name, agent.name === defaultAgent),
      })),
      ...(remotes?.statuses() ?? []).map(({ name }) => ({
        name,
        tools: [],
        urls: agentUrls(publicUrl, name, name === defaultAgent),
        unavailable: true,
      })),
    ],
    compat: `${publicUrl}/compat/agents`,
    openapi: `${publicUrl}/openapi.json`,
    docs: `${publicUrl}/docs`,
  };
  app.get('/', (context) => context.json(index));
}

/**
 * Every agent's routes on every surface. A name served by no agent is `agent_not_found`, or
 * `remote_unavailable` while it is a remote agent's not yet available: every answer for such an
 * agent comes from {@link missingAgent}.
 */
function mountAgents(app: Hono, options: GatewayAppOptions): void {
  const { defaultAgent, servers, remotes } = options;
  const { a2aHttp, a2aSdk } = servers;
  const missingAgent = (name: string): AgentPortError =>
    remotes?.unavailable(name) ?? new AgentNotFoundError(name);

  app.get(AGENT_CARD_ROUTE, (context) => {
    const name = parseQuery(context.req.query(), rootCardQuerySchema).agent ?? defaultAgent;
    const server = a2aSdk.get(name);
    if (server === undefined) return errorResponse(missingAgent(name));
    return server.app.request(AGENT_CARD_ROUTE, { headers: context.req.raw.headers });
  });
  // The SDK's cards are read-only, as the hand-rolled ones are: 405 with Allow, not 404.
  app.all(AGENT_CARD_ROUTE, methodNotAllowed(['GET', 'HEAD']));

  const root = a2aHttp.get(defaultAgent);
  if (root !== undefined) {
    app.route('/', root.app);
  } else {
    // The default agent is a remote agent not available yet.
    for (const path of ROOT_A2A_ROUTES) {
      app.all(path, () => errorResponse(missingAgent(defaultAgent)));
    }
  }
  for (const [name, server] of a2aHttp) app.route(`/agents/${name}`, server.app);
  for (const [name, server] of a2aSdk) {
    app.route(`/a2a/${name}`, server.app);
    app.all(`/a2a/${name}${AGENT_CARD_ROUTE}`, methodNotAllowed(['GET', 'HEAD']));
  }
  // Paths under an agent name no mount took. The gateway's names are flat: an unknown one is named
  // in `agent_not_found`, an unknown path under a served one is `not_found` (rest-sse alone reads
  // the whole path as a nested name). A served agent's invoke and stream, and the rejoin of a
  // stream (`tasks/{id}/stream`), go on to rest-sse.
  const unserved = (path: string, name: string) =>
    errorResponse(a2aHttp.has(name) ? new RouteNotFoundError(path) : missingAgent(name));
  app.all('/agents/:name/:tail{.+}', (context, next) => {
    const name = context.req.param('name');
    const tail = context.req.param('tail');
    if (a2aHttp.has(name) && (tail === 'invoke' || tail === 'stream' || REJOIN_TAIL.test(tail))) {
      return next();
    }
    return unserved(context.req.path, name);
  });
  for (const path of ['/a2a/:name', '/a2a/:name/*']) {
    app.all(path, (context) => unserved(context.req.path, context.req.param('name') ?? ''));
  }
  // rest-sse knows a remote agent once it is available: until then it would call it unknown.
  const pending = (remotes?.statuses() ?? []).map(({ name }) => name);
  for (const name of pending) {
    app.all(`/agents/${name}`, () => errorResponse(missingAgent(name)));
  }
  if (pending.length > 0) {
    const unlisted = pending.map((name) => ({ name, tools: [], unavailable: true }));
    app.get('/agents', async (context) => {
      const listed = (await (await servers.rest.app.request('/')).json()) as { agents: unknown[] };
      return context.json({ agents: [...listed.agents, ...unlisted] });
    });
  }
  app.route('/agents', servers.rest.app);
  app.route('/compat', servers.compat);
}

/** `/openapi.json` and `/docs`, of the routes the app has now; 405 for other methods on them. */
function addDocs(app: Hono, options: GatewayAppOptions): void {
  const secured = (options.apiKeys?.length ?? 0) > 0;
  let document: Record<string, unknown> | undefined;
  const serverPath = new URL(options.publicUrl).pathname.replace(/\/+$/, '');
  const openApi = () => {
    document ??= createOpenApiDocument(documentedRoutes(app, options.agents), describeRoute, {
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
}

/**
 * Composes every surface of the agents served now on one Hono app, following the route map in
 * ARCHITECTURE.md; the gateway composes it again when a remote agent becomes available (Hono's
 * routes are fixed once an app has answered).
 */
export function createGatewayApp(options: GatewayAppOptions): Hono {
  // A trailing slash names the same route, as on Express (and the SDK's Express adapters).
  const app = new Hono({ strict: false });
  app.onError(jsonErrorHandler);
  app.notFound(jsonNotFoundHandler);
  useMiddleware(app, options);
  addOperations(app, options);
  mountAgents(app, options);
  addDocs(app, options);
  return app;
}
