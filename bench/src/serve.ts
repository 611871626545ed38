// The server side of the benchmark, one kind per child process: `node src/serve.ts <kind>`.
// It reports its port over IPC, answers `heap` (heap used after a full GC), `clock` (its wall
// clock) and `{ abortedAt: id }` (when its `hold` agent saw that task abort), and stops when the
// parent disconnects.

import { type Agent, createMemoryConversationStore } from '@agentport/core';
import {
  createBuiltinAgents,
  createGateway,
  type Gateway,
  type GatewayOptions,
} from '@agentport/gateway';
import { listen } from '@agentport/http/node';
import { startHono, startRaw, startSdkExpress } from './anchors.ts';
import { createReplicaAgents, takeAbortTime, wallClock } from './replica-agents.ts';
import { CONVERSATION_MESSAGES } from './scenarios.ts';

/** The servers the benchmark can start. */
export const SERVER_KINDS = [
  'raw',
  'hono',
  'sdk-express',
  'gateway',
  'gateway-message',
  'gateway-ai-sdk',
  'ai-sdk-hono',
  'mastra-hono',
  'gateway-postgres',
  'sdk-express-postgres',
] as const;
/** One of {@link SERVER_KINDS}. */
export type ServerKind = (typeof SERVER_KINDS)[number];

/** The agents of a gateway, the one served at its root, and how its A2A surfaces answer. */
interface GatewaySetup {
  agents: Agent[];
  stores?: Pick<GatewayOptions, 'store' | 'conversations' | 'storesReady'>;
  defaultAgent: string;
  a2aReplyWith: 'task' | 'message';
}

/**
 * Starts the AgentPort gateway (no access log) as `agentport serve` does: the built-in agents,
 * with `a2aReplyWith: 'message'` for the Message-answer scenario, or the mock AI SDK agent wrapped
 * by `fromAiSdk` for the framework-adapter scenario.
 */
function startGateway(signal: AbortSignal, setup: GatewaySetup): Promise<number> {
  let gateway: Gateway | undefined;
  return new Promise((resolve, reject) => {
    listen(
      { fetch: (request: Request, env?: unknown) => (gateway as Gateway).app.fetch(request, env) },
      {
        port: 0,
        hostname: '127.0.0.1',
        signal,
        handleNode: (request, response) => gateway?.handleNode(request, response) ?? false,
        onListen: ({ url, port }) => {
          const { stores, ...rest } = setup;
          gateway = createGateway({
            ...rest,
            publicUrl: url,
            // The long conversation keeps its 50 messages however many turns the load adds.
            conversations: createMemoryConversationStore({
              maxMessagesPerConversation: CONVERSATION_MESSAGES,
            }),
            ...stores,
          });
          resolve(port);
        },
      },
    ).catch(reject);
  });
}

const builtin = (a2aReplyWith: 'task' | 'message'): GatewaySetup => ({
  agents: createBuiltinAgents(),
  defaultAgent: 'assistant',
  a2aReplyWith,
});

/** Starts one kind of server on 127.0.0.1 and resolves with its port. */
export function startServer(kind: ServerKind, signal: AbortSignal): Promise<number> {
  switch (kind) {
    case 'raw':
      return startRaw();
    case 'hono':
      return startHono();
    case 'sdk-express':
      return startSdkExpress();
    case 'gateway':
      return startGateway(signal, builtin('task'));
    case 'gateway-message':
      return startGateway(signal, builtin('message'));
    // The frameworks load only in their own servers' processes, so the others' RSS is unchanged.
    case 'gateway-ai-sdk':
      return import('./frameworks.ts').then(async ({ createAdaptedAgent }) => {
        const agent = await createAdaptedAgent();
        return startGateway(signal, {
          agents: [agent],
          defaultAgent: agent.name,
          a2aReplyWith: 'task',
        });
      });
    case 'ai-sdk-hono':
      return import('./frameworks.ts').then(({ startAiSdkHono }) => startAiSdkHono());
    case 'mastra-hono':
      return import('./frameworks.ts').then(({ startMastraHono }) => startMastraHono());
    case 'gateway-postgres':
      return import('./postgres.ts').then(async ({ openGatewayStores }) => {
        const stores = await openGatewayStores();
        signal.addEventListener('abort', () => void stores.close(), { once: true });
        // With the cross-replica scenarios' agents (any replica may be A or B).
        const setup = builtin('task');
        return startGateway(signal, {
          ...setup,
          agents: [...setup.agents, ...createReplicaAgents()],
          stores: {
            store: stores.tasks,
            conversations: stores.conversations,
            storesReady: () => stores.ready(),
          },
        });
      });
    case 'sdk-express-postgres':
      return import('./postgres.ts').then(({ startSdkExpressPostgres }) =>
        startSdkExpressPostgres(),
      );
  }
}

if (process.send !== undefined && import.meta.main) {
  const kind = process.argv[2] as ServerKind;
  if (!SERVER_KINDS.includes(kind)) throw new Error(`unknown server kind '${kind}'`);
  const controller = new AbortController();
  const port = await startServer(kind, controller.signal);
  process.on('message', (message) => {
    if (message === 'heap') {
      globalThis.gc?.();
      globalThis.gc?.();
      process.send?.({ heap: process.memoryUsage().heapUsed });
    } else if (message === 'clock') {
      process.send?.({ clock: wallClock() });
    } else if (typeof message === 'object' && message !== null && 'abortedAt' in message) {
      process.send?.({ abortedAt: takeAbortTime(String(message.abortedAt)) ?? null });
    }
  });
  process.on('disconnect', () => {
    controller.abort();
    process.exit(0);
  });
  process.send({ port });
}
