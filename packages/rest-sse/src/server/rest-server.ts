import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type Agent,
  type ConversationStore,
  createMemoryConversationStore,
  createMemoryTaskStore,
  type TaskStore,
} from '@agentport/core';
import {
  DEFAULT_MAX_BODY_BYTES,
  errorResponse,
  jsonErrorHandler,
  jsonNotFoundHandler,
  MethodNotAllowedError,
  refuseDotSegments,
} from '@agentport/http';
import { DEFAULT_STREAM_RETAIN_MS } from '@agentport/http/internal';
import { type ListenOptions, listen, type NodeRouteHandler } from '@agentport/http/node';
import { Hono } from 'hono';
import { AgentRegistry, SHOW_METHODS } from './agent-registry.ts';

/** How long a stream run nobody reads goes on by default: 10 seconds. */
const DEFAULT_REJOIN_GRACE_MS = 10_000;

/** Options of {@link createRestServer}. */
export interface RestServerOptions {
  /** Largest accepted request body, in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Idle time before a `: heartbeat` comment on a stream, in milliseconds (default 15,000). */
  heartbeatMs?: number;
  /** Bytes a stream's reader may fall behind before the stream ends with an error (default 1 MiB). */
  maxBufferedBytes?: number;
  /** On Node, write streams straight to the socket rather than through a web stream (default true). */
  directNodeStreaming?: boolean;
  /**
   * Where stream runs are kept as tasks (each `POST /{name}/stream` is one), default a new
   * in-memory store: share one with another surface (a2a-http's) to read and cancel them there.
   */
  store?: TaskStore;
  /**
   * How long a stream run goes on once its reader has left and nobody has rejoined it, in
   * milliseconds, before its task is canceled and its agent aborted (default 10,000).
   */
  rejoinGraceMs?: number;
  /**
   * How long a stream run's task is kept once finished, in milliseconds: its own retention in
   * the store, apart from the store's other tasks (default 10 minutes).
   */
  streamRetentionMs?: number;
  /**
   * Where conversations are kept (each invoke or stream turn, by `contextId`), default a new
   * in-memory one: share one with another surface to continue its conversations here.
   */
  conversations?: ConversationStore;
  /** How many earlier messages of its conversation a run is handed at most (default 100). */
  maxHistory?: number;
}

/** A REST/SSE server: a registry of agents and the Hono app that serves them. */
export interface RestServer {
  /**
   * The Hono app: `GET /`, `GET /{name}`, `POST /{name}/invoke`, `POST /{name}/stream` and
   * `GET /{name}/tasks/{id}/stream` (a stream rejoined).
   */
  readonly app: Hono;
  /** Registers an agent under a route name; throws on an empty, invalid or taken name. */
  register(name: string, agent: Agent): RestServer;
  /**
   * The Node fast path for `POST /{name}/invoke` and `POST /{name}/stream`, without Hono: what
   * `listen` takes first (same answers and streams, errors included, and the caller leaving starts
   * the run's grace). It takes a call only when it can answer it alone: POST, the path exactly
   * `/{name}/invoke` or `/{name}/stream` of a registered agent, a declared JSON body within the
   * limit, not shutting down, and for streams `directNodeStreaming` on.
   */
  handleNode: NodeRouteHandler;
  /**
   * Serves the app on Node until `signal` aborts, invoke and stream calls through `handleNode`;
   * new calls get 503 while it shuts down.
   */
  listen(options?: ListenOptions): Promise<void>;
  /**
   * Starts shutting down: new calls get 503, open streams end with a `shutting_down` event, and the
   * runs still on are canceled.
   */
  close(): void;
}

export { invokeRequestSchema } from './invoke-request.ts';

/** The server's Hono app over a registry: the listing, then every agent path. */
function createRestApp(registry: AgentRegistry): Hono {
  const app = new Hono();
  app.onError(jsonErrorHandler);
  app.notFound(jsonNotFoundHandler);
  // A dot segment names nothing either: URL parsing resolves it before any route sees the path.
  app.use(refuseDotSegments());
  app.all('/', (context) =>
    context.req.method === 'GET' || context.req.method === 'HEAD'
      ? registry.list(context)
      : errorResponse(new MethodNotAllowedError(context.req.method, SHOW_METHODS)),
  );
  app.all('/:path{.+}', (context) => registry.route(context));
  return app;
}

/**
 * Creates a REST/SSE server: register agents by name, then serve `app` (mount it anywhere) or call
 * `listen`. Each agent answers `POST /{name}/invoke` with JSON and `POST /{name}/stream` with SSE.
 *
 * @example
 * const server = createRestServer().register('echo', createEchoAgent());
 * const controller = new AbortController();
 * await server.listen({ port: 8080, signal: controller.signal });
 */
export function createRestServer(options: RestServerOptions = {}): RestServer {
  const registry = new AgentRegistry({
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    heartbeatMs: options.heartbeatMs,
    maxBufferedBytes: options.maxBufferedBytes,
    directNodeStreaming: options.directNodeStreaming !== false,
    store: options.store ?? createMemoryTaskStore(),
    rejoinGraceMs: options.rejoinGraceMs ?? DEFAULT_REJOIN_GRACE_MS,
    streamRetentionMs: options.streamRetentionMs ?? DEFAULT_STREAM_RETAIN_MS,
    conversations: options.conversations ?? createMemoryConversationStore(),
    maxHistory: options.maxHistory,
  });
  const app = createRestApp(registry);
  const server: RestServer = {
    app,
    register(name, agent) {
      registry.register(name, agent);
      return server;
    },
    handleNode: (request, response, path, headers) =>
      registry.handleNode(request, response, path ?? request.url, headers),
    listen(listenOptions = {}) {
      listenOptions.signal?.addEventListener('abort', () => server.close(), { once: true });
      const handleNode = (request: IncomingMessage, response: ServerResponse) =>
        listenOptions.handleNode?.(request, response) === true ||
        server.handleNode(request, response);
      return listen(app, { ...listenOptions, handleNode });
    },
    close: () => registry.close(),
  };
  return server;
}
