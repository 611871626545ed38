import type { IncomingMessage, ServerResponse } from 'node:http';
import type { A2AHttpServer } from '@agentport/a2a-http';
import type { A2ASdkServer } from '@agentport/a2a-sdk';
import { answerUnservable } from '@agentport/http/node';
import type { RestServer } from '@agentport/rest-sse';
import { getRequestListener } from '@hono/node-server';

const REST_MOUNT = '/agents';
const REST_MOUNT_SLASH = `${REST_MOUNT}/`;
const TASKS_ROUTE = '/tasks';
const SDK_MOUNT_SLASH = '/a2a/';
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
export type NodeRoute = (
  request: IncomingMessage,
  response: ServerResponse,
  url: string,
  headers: Record<string, string>,
) => boolean;

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
 * The Node fast path a URL goes to: a2a-http's task creates, rest-sse's invokes and streams, or,
 * for `POST /a2a/{name}/jsonrpc` exactly, the agent's SDK app alone on the Node request (its URL
 * becomes the app's own path): the gateway's router, a trie over every route, and its middleware
 * are skipped (BENCHMARKS.md item 43).
 */
export function createNodeRoute(servers: NodeRouteServers): NodeRoute {
  const { rest, a2aHttp, defaultTasks } = servers;
  const jsonRpc = new Map(
    [...servers.a2aSdk].map(([name, server]) => [
      name,
      getRequestListener(
        async (request: Request, env: unknown) => {
          const response = await server.app.fetch(request, env);
          if (servers.shuttingDown()) response.headers.set('connection', 'close');
          return response;
        },
        { autoCleanupIncoming: true, errorHandler: answerUnservable },
      ),
    ]),
  );
  return (request, response, url, headers) => {
    if (url.startsWith(SDK_MOUNT_SLASH)) {
      const slash = url.indexOf('/', SDK_MOUNT_SLASH.length);
      if (slash === -1 || url.slice(slash) !== JSON_RPC_ROUTE) return false;
      const listener = jsonRpc.get(url.slice(SDK_MOUNT_SLASH.length, slash));
      if (listener === undefined) return false;
      for (const name in headers) response.setHeader(name, headers[name] as string);
      request.url = JSON_RPC_ROUTE;
      void listener(request, response);
      return true;
    }
    if (url.startsWith(TASKS_ROUTE))
      return defaultTasks?.handleNode(request, response, url, headers) ?? false;
    if (!url.startsWith(REST_MOUNT_SLASH)) return false;
    const underMount = url.slice(REST_MOUNT.length);
    const slash = underMount.indexOf('/', 1);
    const tail = slash === -1 ? '' : underMount.slice(slash);
    if (tail.startsWith(TASKS_ROUTE)) {
      const server = a2aHttp.get(underMount.slice(1, slash));
      return server?.handleNode(request, response, tail, headers) ?? false;
    }
    return rest.handleNode(request, response, underMount, headers);
  };
}
