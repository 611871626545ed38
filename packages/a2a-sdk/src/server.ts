import type { AgentCard } from '@a2a-js/sdk';
import { A2A_ERROR_CODE, RequestMalformedError, toRestErrorBody } from '@a2a-js/sdk/errors';
import type {
  DefaultRequestHandler,
  DefaultRequestHandlerOptions,
  ExecutionEventBusManager,
} from '@a2a-js/sdk/server';
import type { TaskRunner } from '@agentport/core';
import { limitBody } from '@agentport/http';
import { type Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import {
  AGENT_CARD_ROUTE,
  type AgentCardOptions,
  createAgentCard,
  JSON_RPC_PATH,
  REST_PATH,
} from './card/agent-card.ts';
import { type ClosableAgentExecutor, createAgentExecutor } from './executor/agent-executor.ts';
import { FastPathRequestHandler } from './handler/fast-path-request-handler.ts';
import { type A2AUserBuilder, noAuthentication } from './http/call-context.ts';
import { createCardHandler } from './http/card-route.ts';
import { createJsonRpcHandler, type JsonRpcRouteOptions } from './http/json-rpc-route.ts';
import {
  isLegacyRestCall,
  legacyRefusal,
  registerLegacyRestRoutes,
} from './http/legacy-rest-routes.ts';
import type { RestEnv, RestRouteOptions } from './http/rest-env.ts';
import { registerRestRoutes } from './http/rest-routes.ts';
import { createCoreTaskStore } from './store/core-task-store.ts';
import { ListenerExecutionEventBusManager } from './store/event-bus.ts';

/** The path of the AgentCard relative to the mount. */
export { AGENT_CARD_ROUTE };

/** Options of {@link createA2ASdkServer}. */
export interface A2ASdkServerOptions extends AgentCardOptions {
  /**
   * The core runner of the agent's tasks, and through it their store (default: a new runner of
   * `agent` over a new in-memory store, running `maxConcurrency` at once). Pass the runner of the
   * agent's hand-rolled A2A server (its `runner`) and both flavours serve the same tasks by the
   * same ids: each reads, lists, follows and cancels the other's. It must run `agent`.
   */
  runner?: TaskRunner;
  /** The per-task event buses (default: {@link ListenerExecutionEventBusManager}). */
  eventBusManager?: ExecutionEventBusManager;
  /** Who the caller is (default: every caller is the same unauthenticated user). */
  userBuilder?: A2AUserBuilder;
  /** `Cache-Control` max-age of the card in seconds; 0 sends `no-cache` (default 3600). */
  cardMaxAge?: number;
  /** The largest request body accepted, in bytes (default 100 KiB, as `express.json()`). */
  maxBodyBytes?: number;
  /** Options passed to the SDK's DefaultRequestHandler. */
  requestHandlerOptions?: DefaultRequestHandlerOptions;
  /**
   * How a blocking SendMessage (JSON-RPC or HTTP+JSON) whose message has no `taskId` is answered:
   * `'task'` (default), through a stored task, or `'message'`, with a Message holding the agent's
   * output (role agent, the message's `contextId` or a new one) and no task. With `'message'`, a
   * run that fails still answers with its failed task; SendStreamingMessage, non-blocking
   * requests and follow-ups to a task always go through a task.
   */
  replyWith?: 'task' | 'message';
  /**
   * How many runs of the agent go at once (default 16; an integer of at least 1, else creating
   * the server throws). The others wait their turn, first come first served: a task in
   * `submitted` (CancelTask ends it without running the agent), a message answer simply later.
   */
  maxConcurrency?: number;
}

/** What {@link createA2ASdkServer} returns. */
export interface A2ASdkServer {
  /** The Hono app to mount at `card.url`'s path (a web-standard fetch handler). */
  app: Hono;
  /** The A2A v1.0 AgentCard the app serves. */
  card: AgentCard;
  /** The request handler behind both bindings (the SDK's, with a fast path for new tasks). */
  requestHandler: DefaultRequestHandler;
  /** Cancels every task still running (its agent is aborted, the task ends canceled). */
  close(): void;
}

/**
 * The app's answer to what its routes throw (they answer the errors they expect themselves), as
 * Hono's own handler gives it (an HTTPException's response, else a logged 500), but for a caller
 * who left while its body was coming in (Node's `aborted`, or a body cut at the server's request
 * timeout): nobody's error, which Hono would print at error level each time a caller chose to.
 */
function answerUnexpected(error: Error, context: Context): Response {
  if (error instanceof HTTPException) return error.getResponse();
  const gone =
    context.req.raw.signal.aborted || (error as NodeJS.ErrnoException).code === 'ECONNRESET';
  if (gone) return new Response(null, { status: 499 });
  console.error(error);
  return context.text('Internal Server Error', 500);
}

/** The default of {@link A2ASdkServerOptions.maxBodyBytes}: 100 KiB, as `express.json()`. */
const DEFAULT_MAX_BODY_BYTES = 100 * 1024;

/** The request handler behind both bindings, with the store, buses and executor it runs on. */
function createRequestHandler(
  options: A2ASdkServerOptions,
  card: AgentCard,
  runner: TaskRunner,
  executor: ClosableAgentExecutor,
): FastPathRequestHandler {
  return new FastPathRequestHandler(
    card,
    createCoreTaskStore(runner),
    executor,
    options.eventBusManager ?? new ListenerExecutionEventBusManager(),
    {
      // A run here ends at a pause (the answer starts another on a new bus): no bus is kept.
      keepBusAliveStates: [],
      ...options.requestHandlerOptions,
      replyWith: options.replyWith ?? 'task',
      runner,
    },
  );
}

/** `POST /jsonrpc`, bodies limited to `maxBodyBytes` (a JSON-RPC 413), and 405 to other methods. */
function registerJsonRpcRoutes(app: Hono, routes: JsonRpcRouteOptions, maxBodyBytes: number): void {
  const tooLarge = `Request body is larger than ${maxBodyBytes} bytes.`;
  app.post(
    JSON_RPC_PATH,
    limitBody(maxBodyBytes, {
      onError: (context) =>
        context.json(
          {
            jsonrpc: '2.0',
            id: null,
            error: { code: A2A_ERROR_CODE.INVALID_REQUEST, message: tooLarge },
          },
          413,
        ),
    }),
    createJsonRpcHandler(routes),
  );
  app.all(JSON_RPC_PATH, (context) =>
    context.json(
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: A2A_ERROR_CODE.INVALID_REQUEST, message: 'Use POST for JSON-RPC.' },
      },
      405,
      { Allow: 'POST' },
    ),
  );
}

/**
 * The HTTP+JSON sub-app: bodies limited to `maxBodyBytes`, the v0.3 routes (unless
 * `legacyCompat` is off), the v1.0 routes, and a JSON 404 for any other (the v0.3 shape to v0.3
 * callers).
 */
function createRestApp(routes: RestRouteOptions, maxBodyBytes: number): Hono<RestEnv> {
  const { legacyCompat } = routes;
  const tooLarge = `Request body is larger than ${maxBodyBytes} bytes.`;
  const rest = new Hono<RestEnv>();
  rest.use(
    '*',
    limitBody(maxBodyBytes, {
      onError: (context) =>
        legacyCompat && isLegacyRestCall(context)
          ? legacyRefusal(context, tooLarge)
          : context.json(toRestErrorBody(new RequestMalformedError(tooLarge), 413), 413),
    }),
  );
  if (legacyCompat) registerLegacyRestRoutes(rest, routes);
  registerRestRoutes(rest, routes);
  rest.all('*', (context) =>
    legacyCompat && isLegacyRestCall(context)
      ? legacyRefusal(context)
      : context.json(
          toRestErrorBody(new Error(`No route for ${context.req.method} ${context.req.path}`), 404),
          404,
        ),
  );
  return rest;
}

/**
 * Serves an agent over the official A2A SDK on Hono: the card at
 * `/.well-known/agent-card.json`, JSON-RPC at `POST /jsonrpc` and the HTTP+JSON binding under
 * `/rest`, for A2A v1.0 and (unless `legacyCompat: false`) v0.3 clients.
 *
 * @example
 * const { app } = createA2ASdkServer({
 *   agent: createEchoAgent(),
 *   card: {
 *     name: 'Echo',
 *     version: '1.0.0',
 *     description: 'Echoes its input',
 *     url: 'http://localhost:8080/a2a/echo',
 *   },
 * });
 * new Hono().route('/a2a/echo', app);
 */
export function createA2ASdkServer(options: A2ASdkServerOptions): A2ASdkServer {
  const legacyCompat = options.legacyCompat !== false;
  const card = createAgentCard(options);
  const executor = createAgentExecutor({
    agent: options.agent,
    maxConcurrency: options.maxConcurrency,
    runner: options.runner,
  });
  const requestHandler = createRequestHandler(options, card, executor.runner, executor);
  const routes: RestRouteOptions = {
    requestHandler,
    userBuilder: options.userBuilder ?? noAuthentication,
    legacyCompat,
  };
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  const app = new Hono();
  app.onError(answerUnexpected);
  app.get(
    AGENT_CARD_ROUTE,
    createCardHandler(card, { legacyCompat, maxAge: options.cardMaxAge ?? 3600 }),
  );
  registerJsonRpcRoutes(app, routes, maxBodyBytes);
  app.route(REST_PATH, createRestApp(routes, maxBodyBytes));
  return { app, card, requestHandler, close: () => executor.close() };
}
