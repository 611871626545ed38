import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type Agent,
  AgentNotFoundError,
  DuplicateAgentError,
  InvalidInputError,
} from '@agentport/core';
import {
  DEFAULT_MAX_BODY_BYTES,
  errorResponse,
  honoAction,
  jsonErrorHandler,
  jsonNotFoundHandler,
  MethodNotAllowedError,
  RouteNotFoundError,
  refuseDotSegments,
  ShuttingDownError,
} from '@agentport/http';
import {
  hasPlainJsonBody,
  type ListenOptions,
  listen,
  type NodeAction,
  type NodeRouteHandler,
  nodeAction,
} from '@agentport/http/node';
import { type Context, Hono } from 'hono';
import { describeAgent } from './describe-agent.ts';
import { invokeAction, streamAction } from './rest-actions.ts';
import { isRouteName, normalizeRouteName } from './route-name.ts';

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
}

/** A REST/SSE server: a registry of agents and the Hono app that serves them. */
export interface RestServer {
  /** The Hono app: `GET /`, `GET /{name}`, `POST /{name}/invoke`, `POST /{name}/stream`. */
  readonly app: Hono;
  /** Registers an agent under a route name; throws on an empty, invalid or taken name. */
  register(name: string, agent: Agent): RestServer;
  /**
   * The Node fast path for `POST /{name}/invoke` and `POST /{name}/stream`, without Hono: what
   * `listen` takes first (same answers and streams, errors included, and the caller leaving aborts
   * the agent). It takes a call only when it can answer it alone: POST, the path exactly
   * `/{name}/invoke` or `/{name}/stream` of a registered agent, a declared JSON body within the
   * limit, not shutting down, and for streams `directNodeStreaming` on.
   */
  handleNode: NodeRouteHandler;
  /**
   * Serves the app on Node until `signal` aborts, invoke and stream calls through `handleNode`;
   * new calls get 503 while it shuts down.
   */
  listen(options?: ListenOptions): Promise<void>;
  /** Starts shutting down: new calls get 503, open streams end with a `shutting_down` event. */
  close(): void;
}

/** One action of an agent, on both paths. */
interface ServedAction {
  hono: (context: Context) => Promise<Response>;
  node: NodeAction;
}

interface Entry {
  agent: Agent;
  /** The JSON of `GET /{name}`, computed once. */
  summary: string;
  invoke: ServedAction;
  stream: ServedAction;
}

export { invokeRequestSchema } from './invoke-request.ts';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };
const SHOW_METHODS = ['GET', 'HEAD'] as const;
const ACTION_METHODS = ['POST'] as const;

function isAgent(value: unknown): value is Agent {
  const agent = value as Partial<Agent> | null;
  return (
    typeof agent === 'object' &&
    agent !== null &&
    typeof agent.invoke === 'function' &&
    typeof agent.stream === 'function' &&
    Array.isArray(agent.tools)
  );
}

/** A percent-encoded `/` in a path. */
const ENCODED_SLASH = /%2f/i;

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
  const agents = new Map<string, Entry>();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const closing = new AbortController();
  const streamOptions = {
    heartbeatMs: options.heartbeatMs,
    maxBufferedBytes: options.maxBufferedBytes,
    direct: options.directNodeStreaming,
    shutdownSignal: closing.signal,
  };
  let listing: string | undefined;
  let shuttingDown = false;

  function served(action: ReturnType<typeof invokeAction>): ServedAction {
    return { hono: honoAction(action), node: nodeAction(action) };
  }

  function runAction(context: Context, action: string, entry: Entry): Promise<Response> | Response {
    if (shuttingDown) return errorResponse(new ShuttingDownError());
    return (action === 'invoke' ? entry.invoke : entry.stream).hono(context);
  }

  function show(context: Context, entry: Entry): Response {
    return context.body(entry.summary, 200, JSON_HEADERS);
  }

  function list(context: Context): Response {
    listing ??= JSON.stringify({
      agents: [...agents.values()].map((entry) => JSON.parse(entry.summary) as unknown),
    });
    return context.body(listing, 200, JSON_HEADERS);
  }

  function route(context: Context): Response | Promise<Response> {
    // An encoded slash names nothing: decoded, `echo%2Finvoke` would read as `echo/invoke`, a path
    // that a proxy in front, matching the raw path, took for something else.
    if (ENCODED_SLASH.test(context.req.path)) {
      return errorResponse(new RouteNotFoundError(context.req.path));
    }
    const path = context.req.param('path') ?? '';
    // Hono routes HEAD as GET and drops the body.
    const method = context.req.method === 'HEAD' ? 'GET' : context.req.method;
    const slash = path.lastIndexOf('/');
    const action = path.slice(slash + 1);
    const isAction = slash > 0 && (action === 'invoke' || action === 'stream');
    const owner = isAction ? agents.get(path.slice(0, slash)) : undefined;
    if (owner !== undefined && method === 'POST') return runAction(context, action, owner);
    const entry = agents.get(path);
    if (entry !== undefined && method === 'GET') return show(context, entry);
    if (owner !== undefined)
      return errorResponse(new MethodNotAllowedError(method, ACTION_METHODS));
    if (entry !== undefined) return errorResponse(new MethodNotAllowedError(method, SHOW_METHODS));
    // An action under a path no agent could have (`/agents//echo/invoke`) names no agent.
    if (isAction && isRouteName(path.slice(0, slash))) {
      return errorResponse(new AgentNotFoundError(path.slice(0, slash)));
    }
    // A name no agent has is an unknown agent, whatever the method; a path no agent could have
    // (`echo/`, `Echo`) is an unknown route, and so is one more segment under a served agent's
    // path for anything but GET (an unknown action, `POST /echo/explode`).
    const underServed = slash > 0 && agents.has(path.slice(0, slash));
    if (isRouteName(path) && (method === 'GET' || !underServed)) {
      return errorResponse(new AgentNotFoundError(path));
    }
    return errorResponse(new RouteNotFoundError(context.req.path));
  }

  const app = new Hono();
  app.onError(jsonErrorHandler);
  app.notFound(jsonNotFoundHandler);
  // Nor does a dot segment, which URL parsing resolves before any route sees the path.
  app.use(refuseDotSegments());
  app.all('/', (context) =>
    context.req.method === 'GET' || context.req.method === 'HEAD'
      ? list(context)
      : errorResponse(new MethodNotAllowedError(context.req.method, SHOW_METHODS)),
  );
  app.all('/:path{.+}', route);

  const server: RestServer = {
    app,
    register(name, agent) {
      const routeName = normalizeRouteName(name);
      if (!isAgent(agent)) {
        throw new InvalidInputError(`'${routeName}' is not an agent (it needs invoke and stream)`, {
          field: 'agent',
        });
      }
      if (agents.has(routeName)) throw new DuplicateAgentError(routeName);
      agents.set(routeName, {
        agent,
        summary: JSON.stringify(describeAgent(routeName, agent)),
        invoke: served(invokeAction(agent, maxBodyBytes)),
        stream: served(streamAction(agent, maxBodyBytes, streamOptions)),
      });
      listing = undefined;
      return server;
    },
    handleNode(request, response, path = request.url, headers) {
      if (shuttingDown || request.method !== 'POST' || path?.[0] !== '/') return false;
      const slash = path.lastIndexOf('/');
      const action = path.slice(slash + 1);
      const streams = action === 'stream' && options.directNodeStreaming !== false;
      if (!(action === 'invoke' || streams)) return false;
      const entry = agents.get(path.slice(1, slash));
      if (entry === undefined || !hasPlainJsonBody(request, maxBodyBytes)) return false;
      (streams ? entry.stream : entry.invoke).node(request, response, headers);
      return true;
    },
    listen(listenOptions = {}) {
      listenOptions.signal?.addEventListener('abort', () => server.close(), { once: true });
      const handleNode = (request: IncomingMessage, response: ServerResponse) =>
        listenOptions.handleNode?.(request, response) === true ||
        server.handleNode(request, response);
      return listen(app, { ...listenOptions, handleNode });
    },
    close() {
      shuttingDown = true;
      closing.abort();
    },
  };
  return server;
}
