import { type A2AHttpServer, createA2AHttpServer } from '@agentport/a2a-http';
import { type A2ASdkServer, createA2ASdkServer } from '@agentport/a2a-sdk';
import { createCompatApp } from '@agentport/compat';
import {
  type Agent,
  type AgentPortError,
  type ConversationStore,
  createMemoryConversationStore,
  createMemoryTaskStore,
  type TaskStore,
} from '@agentport/core';
import { DEFAULT_MAX_BODY_BYTES } from '@agentport/http';
import { createRestServer, type RestServer } from '@agentport/rest-sse';
import type { Hono } from 'hono';
import { createGatewayRunner } from './gateway-runner.ts';

/** What the servers of every agent are built with (a subset of the gateway's options). */
export interface AgentServersOptions {
  publicUrl: string;
  /** Whether API keys are on: the cards then advertise the two schemes. */
  secured: boolean;
  maxConcurrency?: number | undefined;
  maxBodyBytes?: number | undefined;
  heartbeatMs?: number | undefined;
  /** How long a REST or compat stream outlives its caller for a rejoin (their default 10 s). */
  rejoinGraceMs?: number | undefined;
  /** Where every surface keeps conversations (default a new in-memory store). */
  conversations?: ConversationStore | undefined;
  /** Where every surface keeps its tasks and their logs (default a new in-memory store). */
  store?: TaskStore | undefined;
  /** Whether the A2A runners also run the tasks other gateways left submitted in that store. */
  claimTasks?: boolean | undefined;
  version?: string | undefined;
  a2aReplyWith?: 'task' | 'message' | undefined;
  /** Aborted on shutdown: ends the compat surface's open run streams. */
  shutdownSignal: AbortSignal;
  /** The error a name not served yet is answered with (a remote not available yet), if any. */
  unavailable(name: string): AgentPortError | undefined;
}

/** Every surface's servers, one set per agent served, which {@link AgentServers.add} extends. */
export interface AgentServers {
  readonly a2aHttp: ReadonlyMap<string, A2AHttpServer>;
  readonly a2aSdk: ReadonlyMap<string, A2ASdkServer>;
  /** The REST/SSE server, every agent registered in it. */
  readonly rest: RestServer;
  /** The compat app, whose runner runs the agents added so far. */
  readonly compat: Hono;
  /** Builds an agent's servers on every surface (a remote agent once it becomes available). */
  add(agent: Agent): void;
  /** Refuses new work, ends open streams and cancels running tasks, on every surface. */
  close(): Promise<void>;
}

function handRolledSecurity(secured: boolean) {
  if (!secured) return {};
  return {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer' },
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    },
    security: [{ bearer: [] }, { apiKey: [] }] as Array<Record<string, string[]>>,
  };
}

/** The limits every surface's servers take, as the options name them (left out when unset). */
function limitsOf(options: AgentServersOptions) {
  return {
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    heartbeat: options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs },
    grace: options.rejoinGraceMs === undefined ? {} : { rejoinGraceMs: options.rejoinGraceMs },
    concurrency:
      options.maxConcurrency === undefined ? {} : { maxConcurrency: options.maxConcurrency },
  };
}

/**
 * Creates the servers of `agents` on every surface: a hand-rolled A2A server and an official SDK
 * one per agent (their cards read the agent as it is then), a REST/SSE registration, and one
 * compat app over them all. One task store serves every hand-rolled A2A server.
 */
export function createAgentServers(
  agents: readonly Agent[],
  options: AgentServersOptions,
): AgentServers {
  const { publicUrl, secured } = options;
  const version = options.version ?? '0.1.0';
  const { maxBodyBytes, heartbeat, grace, concurrency } = limitsOf(options);
  const store = options.store ?? createMemoryTaskStore();
  const conversations = options.conversations ?? createMemoryConversationStore();
  const card = { version, ...handRolledSecurity(secured) };
  const a2aHttp = new Map<string, A2AHttpServer>();
  const a2aSdk = new Map<string, A2ASdkServer>();
  // REST streams are tasks of the same store: the hand-rolled routes of their agent see them.
  const rest = createRestServer({ maxBodyBytes, store, conversations, ...heartbeat, ...grace });
  const runner = createGatewayRunner(options.unavailable, { store, conversations });
  // Compat streams are tasks of the same store too (their task is the agent that was asked).
  const compat = createCompatApp({
    runner: runner.runner,
    store,
    conversations,
    shutdownSignal: options.shutdownSignal,
    maxBodyBytes,
    ...heartbeat,
    ...grace,
  });
  const served: Agent[] = [];

  function add(agent: Agent): void {
    // Both built before either is kept: an agent that cannot be served leaves nothing behind.
    const handRolled = createA2AHttpServer({
      agent,
      store,
      // One conversation store for every surface: a contextId is one conversation wherever it is used.
      conversations,
      // Cards name the configured address, never the Host a client sends.
      publicUrl,
      card,
      maxBodyBytes,
      ...concurrency,
      ...heartbeat,
      ...(options.claimTasks === true && { claimTasks: true }),
    });
    const sdk = createA2ASdkServer({
      agent,
      card: {
        name: agent.name,
        version,
        description: agent.description ?? `The ${agent.name} agent`,
        url: `${publicUrl}/a2a/${agent.name}`,
      },
      // One task model: the SDK flavour runs and reads the hand-rolled server's tasks.
      runner: handRolled.runner,
      maxBodyBytes,
      ...(secured
        ? { bearerAuth: { description: 'An AgentPort API key', apiKeyHeader: 'X-API-Key' } }
        : {}),
      ...(options.a2aReplyWith === undefined ? {} : { replyWith: options.a2aReplyWith }),
      ...concurrency,
    });
    runner.serve([...served, agent]);
    rest.register(agent.name, agent);
    a2aHttp.set(agent.name, handRolled);
    a2aSdk.set(agent.name, sdk);
    served.push(agent);
  }

  for (const agent of agents) add(agent);
  return {
    a2aHttp,
    a2aSdk,
    rest,
    compat,
    add,
    async close() {
      rest.close();
      for (const server of a2aSdk.values()) server.close();
      await Promise.all([...a2aHttp.values()].map((server) => server.close()));
    },
  };
}
