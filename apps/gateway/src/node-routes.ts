import type { IncomingMessage, ServerResponse } from 'node:http';
import type { A2AHttpServer } from '@agentport/a2a-http';
import type { A2ASdkServer } from '@agentport/a2a-sdk';
import {
  answerUnservable,
  createNodeRouter,
  type NodeMount,
  type NodeRouteHandler,
  type NodeRouter,
} from '@agentport/http/node';
import type { RestServer } from '@agentport/rest-sse';
import { getRequestListener } from '@hono/node-server';
import type { Logger } from 'pino';
import { logWhenClosed } from './access-log.ts';
import { nodeKeyCheck } from './auth.ts';
import { nodeRequestId, REQUEST_ID_HEADER } from './request-id.ts';

const TASKS_ROUTE = '/tasks';
/** The official SDK surface's JSON-RPC endpoint, under `/a2a/{name}`. */
const JSON_RPC_ROUTE = '/jsonrpc';

/** The servers behind the gateway's Node fast path. */
export interface NodeRouteServers {
  rest: RestServer;
  a2aHttp: ReadonlyMap<string, A2AHttpServer>;
  /** The default agent's hand-rolled A2A server, at the root (none while it is unavailable). */
  defaultTasks: A2AHttpServer | undefined;
  a2aSdk: ReadonlyMap<string, A2ASdkServer>;
  /** Whether the gateway is shutting down: an answer then closes its connection, as the app's do. */
  shuttingDown(): boolean;
}

/** Answers one request on the Node fast path with `headers` added, or returns false untouched. */
export type NodeRoute = NodeRouter;

/** Whether a POST to `path` (no query) may be one the Node fast path answers. */
export function mayTakeOnNode(path: string): boolean {
  return (
    path.endsWith('/invoke') ||
    path.endsWith('/stream') ||
    path.endsWith(TASKS_ROUTE) ||
    path.endsWith(JSON_RPC_ROUTE)
  );
}

/**
 * The Node fast path of `POST /a2a/{name}/jsonrpc` exactly: the agent's SDK app alone on the Node
 * request (its URL becomes the app's own path), which skips the gateway's router, a trie over
 * every route, and its middleware (docs/decisions/0003).
 */
function jsonRpcOnNode(server: A2ASdkServer, shuttingDown: () => boolean): NodeRouteHandler {
  const listener = getRequestListener(
    async (request: Request, env: unknown) => {
      const response = await server.app.fetch(request, env);
      if (shuttingDown()) response.headers.set('connection', 'close');
      return response;
    },
    { autoCleanupIncoming: true, errorHandler: answerUnservable },
  );
  return (request, response, path, headers) => {
    if (path !== JSON_RPC_ROUTE) return false;
    if (headers !== undefined)
      for (const name in headers) response.setHeader(name, headers[name] as string);
    request.url = JSON_RPC_ROUTE;
    void listener(request, response);
    return true;
  };
}

/**
 * The gateway's Node fast path, mounted as the app mounts the same servers: a2a-http's task
 * creates (the default agent's at the root, each agent's under `/agents/{name}`), rest-sse's
 * invokes and streams under `/agents`, and each agent's SDK JSON-RPC under `/a2a/{name}`.
 */
export function createNodeRoute(servers: NodeRouteServers): NodeRoute {
  const mounts: NodeMount[] = [{ prefix: '/agents', handleNode: servers.rest.handleNode }];
  if (servers.defaultTasks !== undefined) {
    mounts.push({ prefix: '', handleNode: servers.defaultTasks.handleNode });
  }
  for (const [name, server] of servers.a2aHttp) {
    mounts.push({ prefix: `/agents/${name}`, handleNode: server.handleNode });
  }
  for (const [name, server] of servers.a2aSdk) {
    mounts.push({
      prefix: `/a2a/${name}`,
      handleNode: jsonRpcOnNode(server, servers.shuttingDown),
    });
  }
  return createNodeRouter({ mounts });
}

/** What the gateway's `handleNode` is built from (a subset of the gateway's options). */
export interface NodeHandlerOptions {
  apiKeys?: string[] | undefined;
  cors?: boolean | string[] | undefined;
  logger?: Logger | undefined;
}

/**
 * The gateway's `handleNode`: the requests the Node fast path may take, with the app's request
 * id, key check and access log line (each the app middleware's own code), answered by the node
 * route composed last. CORS, 401s and 503s are the app's: those requests go there.
 */
export function createNodeHandler(
  options: NodeHandlerOptions,
  currentRoute: () => NodeRoute,
  isShuttingDown: () => boolean,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  const { logger } = options;
  const corsOn = options.cors !== undefined && options.cors !== false;
  const hasKey =
    options.apiKeys !== undefined && options.apiKeys.length > 0
      ? nodeKeyCheck(options.apiKeys)
      : undefined;

  return (request, response) => {
    const { url, method } = request;
    if (isShuttingDown() || corsOn || url === undefined || method !== 'POST') return false;
    // Every other route leaves before any work (a key digest, a request id).
    const mark = url.indexOf('?');
    const path = mark === -1 ? url : url.slice(0, mark);
    if (!mayTakeOnNode(path) || hasKey?.(request) === false) return false;
    const started = logger === undefined ? 0 : performance.now();
    const requestId = nodeRequestId(request);
    if (!currentRoute()(request, response, url, { [REQUEST_ID_HEADER]: requestId })) return false;
    if (logger !== undefined) {
      logWhenClosed(logger, response, () => ({ requestId, method, path, started }));
    }
    return true;
  };
}
