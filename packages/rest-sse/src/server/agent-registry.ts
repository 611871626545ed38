import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type Agent,
  AgentNotFoundError,
  type ConversationStore,
  createTaskRunner,
  DuplicateAgentError,
  InvalidInputError,
  type TaskRunner,
  type TaskStore,
} from '@agentport/core';
import {
  type ActionStreamOptions,
  errorResponse,
  honoAction,
  MethodNotAllowedError,
  type RouteAction,
  RouteNotFoundError,
  ShuttingDownError,
} from '@agentport/http';
import { rejoinStream, StreamRuns } from '@agentport/http/internal';
import {
  type AnswerHeaders,
  hasPlainJsonBody,
  type NodeAction,
  nodeAction,
} from '@agentport/http/node';
import type { Context } from 'hono';
import { describeAgent } from './describe-agent.ts';
import { invokeAction, streamAction } from './rest-actions.ts';
import { isRouteName, normalizeRouteName } from './route-name.ts';

/** The methods of `GET /` and `GET /{name}`. */
export const SHOW_METHODS = ['GET', 'HEAD'] as const;
const ACTION_METHODS = ['POST'] as const;
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };
/** A percent-encoded `/` in a path. */
const ENCODED_SLASH = /%2f/i;
/** `{name}/tasks/{id}/stream`: where a stream is rejoined. */
const REJOIN_PATH = /^(.+)\/tasks\/([^/]+)\/stream$/;

/** One action of an agent, on both paths, built from its one declaration. */
interface ServedAction {
  hono: (context: Context) => Promise<Response>;
  node: NodeAction;
}

interface Entry {
  agent: Agent;
  /** The agent's task runner (its conversation turns, resumed tasks), made when first needed. */
  runner: TaskRunner | undefined;
  /** The JSON of `GET /{name}`, computed once. */
  summary: string;
  invoke: ServedAction;
  stream: ServedAction;
}

/** What a registry's actions are built with. */
export interface AgentRegistryOptions {
  maxBodyBytes: number;
  heartbeatMs: number | undefined;
  maxBufferedBytes: number | undefined;
  directNodeStreaming: boolean;
  /** Where stream runs and paused turns keep their tasks. */
  store: TaskStore;
  /** Where conversations are kept. */
  conversations: ConversationStore;
  /** How many earlier messages a run is handed at most. */
  maxHistory: number | undefined;
  /** How long a stream run nobody reads goes on before it is canceled. */
  rejoinGraceMs: number;
  streamRetentionMs: number;
}

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

function served(action: RouteAction): ServedAction {
  return { hono: honoAction(action), node: nodeAction(action) };
}

/** The agents of a REST server by route name, and how each path under them is answered. */
export class AgentRegistry {
  readonly #agents = new Map<string, Entry>();
  readonly #options: AgentRegistryOptions;
  readonly #closing = new AbortController();
  readonly #runs: StreamRuns;
  readonly #streamOptions: ActionStreamOptions;
  #listing: string | undefined;

  constructor(options: AgentRegistryOptions) {
    this.#options = options;
    this.#runs = new StreamRuns(
      options.store,
      options.rejoinGraceMs,
      this.#closing.signal,
      options.streamRetentionMs,
      // A plain stream's task holds no message: an idle stream costs what it did.
      {
        conversations: options.conversations,
        maxHistory: options.maxHistory,
        keepTextAsInput: true,
      },
    );
    this.#streamOptions = {
      heartbeatMs: options.heartbeatMs,
      maxBufferedBytes: options.maxBufferedBytes,
      direct: options.directNodeStreaming,
      shutdownSignal: this.#closing.signal,
    };
  }

  /** Registers an agent under a route name; throws on an empty, invalid or taken name. */
  register(name: string, agent: Agent): void {
    const routeName = normalizeRouteName(name);
    if (!isAgent(agent)) {
      throw new InvalidInputError(`'${routeName}' is not an agent (it needs invoke and stream)`, {
        field: 'agent',
      });
    }
    if (this.#agents.has(routeName)) throw new DuplicateAgentError(routeName);
    const { maxBodyBytes } = this.#options;
    const runnerOf = (): TaskRunner => this.#runnerOf(routeName);
    this.#agents.set(routeName, {
      agent,
      runner: undefined,
      summary: JSON.stringify(describeAgent(routeName, agent)),
      invoke: served(invokeAction(agent, runnerOf, maxBodyBytes)),
      stream: served(streamAction(agent, runnerOf, this.#runs, maxBodyBytes, this.#streamOptions)),
    });
    this.#listing = undefined;
  }

  /**
   * Starts shutting down: new calls get 503, open streams end with a `shutting_down` event, and
   * the runs still on are canceled.
   */
  close(): void {
    this.#closing.abort();
    this.#runs.close();
    for (const entry of this.#agents.values()) void entry.runner?.close();
  }

  /**
   * The runner of a registered agent, made at its first turn: over the server's store and
   * conversations, with no bound of its own on the turns it runs at once (as streams have none).
   */
  #runnerOf(routeName: string): TaskRunner {
    const entry = this.#agents.get(routeName) as Entry;
    if (entry.runner !== undefined) return entry.runner;
    const { store, conversations, maxHistory } = this.#options;
    entry.runner = createTaskRunner({
      agent: entry.agent,
      store,
      conversations,
      maxConcurrency: Number.MAX_SAFE_INTEGER,
      ...(maxHistory === undefined ? {} : { maxHistory }),
    });
    return entry.runner;
  }

  /** `GET /{name}/tasks/{id}/stream` of a served agent, or undefined for another path. */
  #rejoin(path: string, context: Context): Promise<Response> | undefined {
    const match = REJOIN_PATH.exec(path);
    const entry = match === null ? undefined : this.#agents.get(match[1] as string);
    if (entry === undefined) return undefined;
    const id = (match as RegExpExecArray)[2] as string;
    const { name } = entry.agent;
    const serves = (agentName: string): boolean => agentName === name;
    return rejoinStream(context, this.#runs, serves, id, this.#streamOptions).catch(errorResponse);
  }

  /** `GET /`: every agent's summary. */
  list(context: Context): Response {
    this.#listing ??= JSON.stringify({
      agents: [...this.#agents.values()].map((entry) => JSON.parse(entry.summary) as unknown),
    });
    return context.body(this.#listing, 200, JSON_HEADERS);
  }

  /** Every path under the server but `/`: an agent's summary, one of its actions, or an error. */
  route(context: Context): Response | Promise<Response> {
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
    const owner = isAction ? this.#agents.get(path.slice(0, slash)) : undefined;
    if (owner !== undefined && method === 'POST') {
      if (this.#closing.signal.aborted) return errorResponse(new ShuttingDownError());
      return (action === 'invoke' ? owner.invoke : owner.stream).hono(context);
    }
    const entry = this.#agents.get(path);
    if (entry !== undefined && method === 'GET') {
      return context.body(entry.summary, 200, JSON_HEADERS);
    }
    const rejoined =
      entry === undefined && method === 'GET' ? this.#rejoin(path, context) : undefined;
    if (rejoined !== undefined) return rejoined;
    if (owner !== undefined) {
      return errorResponse(new MethodNotAllowedError(method, ACTION_METHODS));
    }
    if (entry !== undefined) return errorResponse(new MethodNotAllowedError(method, SHOW_METHODS));
    return errorResponse(this.#unknown(path, slash, isAction, method, context.req.path));
  }

  /** The error of a path that names no served agent or action. */
  #unknown(path: string, slash: number, isAction: boolean, method: string, whole: string): Error {
    // An action under a path no agent could have (`/agents//echo/invoke`) names no agent.
    if (isAction && isRouteName(path.slice(0, slash))) {
      return new AgentNotFoundError(path.slice(0, slash));
    }
    // A name no agent has is an unknown agent, whatever the method; a path no agent could have
    // (`echo/`, `Echo`) is an unknown route, and so is one more segment under a served agent's
    // path for anything but GET (an unknown action, `POST /echo/explode`).
    const underServed = slash > 0 && this.#agents.has(path.slice(0, slash));
    if (isRouteName(path) && (method === 'GET' || !underServed))
      return new AgentNotFoundError(path);
    return new RouteNotFoundError(whole);
  }

  /** The Node fast path of `POST /{name}/invoke` and `/stream` (see `RestServer.handleNode`). */
  handleNode(
    request: IncomingMessage,
    response: ServerResponse,
    path: string | undefined,
    headers: AnswerHeaders | undefined,
  ): boolean {
    if (this.#closing.signal.aborted || request.method !== 'POST' || path?.[0] !== '/')
      return false;
    const slash = path.lastIndexOf('/');
    const action = path.slice(slash + 1);
    const streams = action === 'stream' && this.#options.directNodeStreaming;
    if (!(action === 'invoke' || streams)) return false;
    const entry = this.#agents.get(path.slice(1, slash));
    if (entry === undefined || !hasPlainJsonBody(request, this.#options.maxBodyBytes)) return false;
    (streams ? entry.stream : entry.invoke).node(request, response, headers);
    return true;
  }
}
