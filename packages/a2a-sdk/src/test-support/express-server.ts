import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import {
  agentCardHandler,
  jsonRpcHandler,
  restHandler,
  UserBuilder,
} from '@a2a-js/sdk/server/express';
import type { Agent } from '@agentport/core';
import express from 'express';
import { createAgentCard } from '../card/agent-card.ts';
import { createAgentExecutor } from '../executor/agent-executor.ts';
import { type Listening, listenNode } from './listen.ts';

/** An agent served by the SDK's own Express adapters (the reference), mounted at `/a2a/{name}`. */
export interface ExpressServedAgent extends Listening {
  baseUrl: string;
  cardUrl: string;
  requestHandler: DefaultRequestHandler;
}

/**
 * Serves an agent the official way: the same card and executor, the SDK's InMemoryTaskStore and
 * event bus, and its Express `agentCardHandler`, `jsonRpcHandler` and `restHandler` with legacy
 * compatibility on.
 */
export async function serveAgentWithExpress(agent: Agent): Promise<ExpressServedAgent> {
  let app: express.Express | undefined;
  const listening = await listenNode((request, response) => {
    if (app === undefined) response.writeHead(503).end();
    else app(request, response);
  });
  const baseUrl = `${listening.origin}/a2a/${agent.name}`;
  const card = createAgentCard({
    agent,
    card: {
      name: agent.name,
      version: '1.0.0',
      description: agent.description ?? agent.name,
      url: baseUrl,
    },
  });
  const requestHandler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    createAgentExecutor({ agent }),
  );
  const legacyCompat = { enabled: true };
  const userBuilder = UserBuilder.noAuthentication;
  const mount = `/a2a/${agent.name}`;
  app = express();
  app.use(
    `${mount}/.well-known/agent-card.json`,
    agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }),
  );
  app.use(`${mount}/jsonrpc`, jsonRpcHandler({ requestHandler, userBuilder, legacyCompat }));
  app.use(`${mount}/rest`, restHandler({ requestHandler, userBuilder, legacyCompat }));
  return {
    ...listening,
    baseUrl,
    cardUrl: `${baseUrl}/.well-known/agent-card.json`,
    requestHandler,
  };
}
