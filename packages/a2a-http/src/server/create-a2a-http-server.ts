import {
  type Agent,
  type ConversationStore,
  createTaskRunner,
  InvalidInputError,
  type TaskRunner,
  type TaskStore,
} from '@agentport/core';
import {
  DEFAULT_MAX_BODY_BYTES,
  jsonErrorHandler,
  jsonNotFoundHandler,
  methodNotAllowed,
} from '@agentport/http';
import {
  hasPlainJsonBody,
  type ListenOptions,
  listen,
  type NodeRouteHandler,
  nodeAction,
} from '@agentport/http/node';
import { Hono } from 'hono';
import { AGENT_CARD_PATH, type AgentCardOptions, buildAgentCard } from '../wire/agent-card.ts';
import { createTaskAction } from './create-task-action.ts';
import { requestEndpoint } from './request-endpoint.ts';
import { sendMessageAction } from './send-message-action.ts';
import { registerTaskRoutes, type TaskRoutesOptions } from './task-routes.ts';

const TASKS_ROUTE = '/tasks';
const TASK_PREFIX = '/tasks/';
const MESSAGES_SUFFIX = '/messages';

/** Options of {@link createA2AHttpServer}. */
export interface A2AHttpServerOptions {
  /** The agent whose tasks this server runs. */
  agent: Agent;
  /** Card fields to set or override (name, endpoint, description, version, skills). */
  card?: AgentCardOptions;
  /** Where tasks live (default: a new in-memory store); share one to see tasks across servers. */
  store?: TaskStore;
  /** How many tasks run at once; the rest wait in `submitted` (default 16). */
  maxConcurrency?: number;
  /**
   * Whether its runner also runs the tasks that other servers' runners left `submitted` in the
   * shared `store` (core's `claimTasks`; default false): replicas on one database spread a queue.
   */
  claimTasks?: boolean;
  /**
   * Where conversations live, by `contextId` (default: a new in-memory store); share one, with
   * the task store, for the conversations of every surface and replica.
   */
  conversations?: ConversationStore;
  /** How many earlier messages of its conversation a run is handed at most (default 100). */
  maxHistory?: number;
  /** The largest accepted request body, in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * The public base URL the server is reached at (scheme, host, optional path prefix): the card's
   * endpoint is it plus the path the card was asked under (a mount prefix), whatever `Host` the
   * request names. `card.endpoint` still wins; without either, the request's URL is used. Its
   * path prefix also comes first in a created task's `Location`.
   */
  publicUrl?: string;
  /**
   * Derive the card's endpoint from `X-Forwarded-Proto` and `X-Forwarded-Host` when neither
   * `card.endpoint` nor `publicUrl` is set; only behind a proxy that sets them (default false).
   */
  trustProxyHeaders?: boolean;
  /** Idle time before an SSE heartbeat comment on event streams, in milliseconds (default 15 s). */
  heartbeatMs?: number;
}

/** A hand-rolled A2A server: a Hono app, its task runner, and a way to serve and close it. */
export interface A2AHttpServer {
  /** The routes, relative to wherever the app is mounted (`app.route(prefix, server.app)`). */
  readonly app: Hono;
  /** The runner behind the routes; the server owns it. */
  readonly runner: TaskRunner;
  /**
   * The Node fast path for `POST /tasks` and `POST /tasks/{id}/messages` (with or without
   * `wait`), without Hono: what `listen` takes first (same answers, errors included). It takes a
   * call only when it can answer it alone: POST, the path exactly `/tasks` or
   * `/tasks/{id}/messages`, a declared JSON body within the limit, the server taking tasks.
   */
  readonly handleNode: NodeRouteHandler;
  /**
   * Serves the app until `signal` aborts, then closes the server (long-polls answer, event streams
   * end, running tasks are canceled) and resolves once the port is released; rejects with a
   * `ListenError` when the port is busy or the address is not available.
   */
  listen(options?: ListenOptions): Promise<void>;
  /** Stops taking tasks (503), answers pending long-polls, ends event streams, cancels running tasks. */
  close(): Promise<void>;
}

/** The public base URL without its trailing slashes; refused when it is not an absolute URL. */
function checkedPublicUrl(publicUrl: string | undefined): string | undefined {
  const trimmed = publicUrl?.replace(/\/+$/, '');
  if (trimmed !== undefined && !URL.canParse(trimmed)) {
    throw new InvalidInputError(`publicUrl must be an absolute URL, not '${trimmed}'`, {
      field: 'publicUrl',
    });
  }
  return trimmed;
}

/** `GET /.well-known/agent.json`, its endpoint from the configured or the requested URL. */
function registerCardRoute(app: Hono, options: A2AHttpServerOptions, publicUrl?: string): void {
  const { agent } = options;
  const cardOptions = options.card ?? {};
  const trustProxyHeaders = options.trustProxyHeaders ?? false;
  app.get(AGENT_CARD_PATH, (context) => {
    const endpoint = requestEndpoint(
      context.req.raw,
      AGENT_CARD_PATH,
      trustProxyHeaders,
      publicUrl,
    );
    return context.json(buildAgentCard(agent, cardOptions, endpoint));
  });
  app.all(AGENT_CARD_PATH, methodNotAllowed(['GET', 'HEAD']));
}

/** Whether a path (without its query) is `/tasks/{id}/messages`, one segment for the id. */
function isMessagesRoute(route: string): boolean {
  if (!route.startsWith(TASK_PREFIX) || !route.endsWith(MESSAGES_SUFFIX)) return false;
  const end = route.length - MESSAGES_SUFFIX.length;
  return end > TASK_PREFIX.length && route.indexOf('/', TASK_PREFIX.length) === end;
}

/**
 * The Node fast path of `POST /tasks` and `POST /tasks/{id}/messages`, built from the same
 * actions as the Hono routes; it takes a request only when it can answer it alone (see
 * {@link A2AHttpServer.handleNode}).
 */
function createTasksNodePath(routes: TaskRoutesOptions): NodeRouteHandler {
  const createOnNode = nodeAction(createTaskAction(routes));
  const sendOnNode = nodeAction(sendMessageAction(routes));
  return (request, response, path = request.url, headers) => {
    if (routes.refusing.aborted || request.method !== 'POST' || path === undefined) return false;
    const mark = path.indexOf('?');
    const route = mark === -1 ? path : path.slice(0, mark);
    const creates = route === TASKS_ROUTE;
    if (!creates && !isMessagesRoute(route)) return false;
    if (!hasPlainJsonBody(request, routes.maxBodyBytes)) return false;
    (creates ? createOnNode : sendOnNode)(request, response, headers);
    return true;
  };
}

/**
 * Creates a hand-rolled A2A server for one agent: the Agent Card and the task routes.
 *
 * @example
 * const server = createA2AHttpServer({ agent: createEchoAgent(), card: { version: '1.0.0' } });
 * gateway.route('/agents/echo', server.app); // or: await server.listen({ port: 8080, signal });
 */
export function createA2AHttpServer(options: A2AHttpServerOptions): A2AHttpServer {
  const runner = createTaskRunner({
    agent: options.agent,
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.maxConcurrency === undefined ? {} : { maxConcurrency: options.maxConcurrency }),
    ...(options.conversations === undefined ? {} : { conversations: options.conversations }),
    ...(options.maxHistory === undefined ? {} : { maxHistory: options.maxHistory }),
    ...(options.claimTasks === undefined ? {} : { claimTasks: options.claimTasks }),
  });
  const refusing = new AbortController();
  const closing = new AbortController();
  const publicUrl = checkedPublicUrl(options.publicUrl);
  const app = new Hono();
  // Only for standalone use: under `parent.route(prefix, app)` the parent's notFound answers, so
  // sibling routes under the same prefix stay reachable. No catch-all route on purpose.
  app.notFound(jsonNotFoundHandler);
  app.onError(jsonErrorHandler);
  registerCardRoute(app, options, publicUrl);
  const routes: TaskRoutesOptions = {
    runner,
    refusing: refusing.signal,
    closing: closing.signal,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(publicUrl === undefined
      ? {}
      : { publicPath: new URL(publicUrl).pathname.replace(/\/+$/, '') }),
  };
  registerTaskRoutes(app, routes);
  const handleNode = createTasksNodePath(routes);

  let closed: Promise<void> | undefined;
  function close(): Promise<void> {
    closed ??= (async () => {
      refusing.abort();
      // Cancel first, so pending long-polls and event streams end with the canceled task.
      await runner.close();
      closing.abort();
    })();
    return closed;
  }

  return {
    app,
    runner,
    close,
    handleNode,
    async listen(listenOptions = {}) {
      const { signal } = listenOptions;
      const onAbort = () => void close();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        await listen(app, {
          ...listenOptions,
          handleNode: (request, response) =>
            listenOptions.handleNode?.(request, response) === true || handleNode(request, response),
        });
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
      if (signal?.aborted) await close();
    },
  };
}
