import type { AgentCard } from '@a2a-js/sdk';
import type { Agent } from '@agentport/core';
import { Hono } from 'hono';
import { AGENT_CARD_ROUTE } from '../card/agent-card.ts';
import { isLegacyVersion, toLegacyAgentCard } from '../card/legacy-agent-card.ts';
import { type A2ASdkServer, type A2ASdkServerOptions, createA2ASdkServer } from '../server.ts';
import { type Listening, listenFetch } from './listen.ts';

/** An agent served by {@link createA2ASdkServer} over real HTTP, mounted at `/a2a/{name}`. */
export interface ServedAgent extends Listening {
  /** `http://127.0.0.1:<port>/a2a/<name>`: the mount and the card's `url`. */
  baseUrl: string;
  /** `<baseUrl>/.well-known/agent-card.json` */
  cardUrl: string;
  server: A2ASdkServer;
}

/** What {@link serveAgent} passes on to {@link createA2ASdkServer}: all but agent and card. */
export type ServeAgentOptions = Omit<A2ASdkServerOptions, 'agent' | 'card'>;

/** Serves an agent the way the gateway will: mounted at `/a2a/{name}` of a root Hono app. */
export async function serveAgent(
  agent: Agent,
  options: ServeAgentOptions = {},
): Promise<ServedAgent> {
  let root: Hono | undefined;
  const listening = await listenFetch((request) =>
    root === undefined ? new Response('starting', { status: 503 }) : root.fetch(request),
  );
  const baseUrl = `${listening.origin}/a2a/${agent.name}`;
  const server = createA2ASdkServer({
    ...options,
    agent,
    card: {
      name: agent.name,
      version: '1.0.0',
      description: agent.description ?? agent.name,
      url: baseUrl,
    },
  });
  root = new Hono().route(`/a2a/${agent.name}`, server.app);
  return {
    ...listening,
    baseUrl,
    cardUrl: `${baseUrl}/.well-known/agent-card.json`,
    server,
  };
}

/** A server publishing only an AgentCard, at `/.well-known/agent-card.json`. */
export interface CardServer extends Listening {
  cardUrl: string;
}

/**
 * Serves, on a port of its own, the card of an agent that offers only A2A v0.3 over one binding:
 * a plain v0.3 card (no v1.0 `supportedInterfaces`) whose `url` and `preferredTransport` are that
 * binding's v0.3 interface of `card`, so clients reach the agent where it is served.
 */
export async function serveLegacyCard(
  card: AgentCard,
  binding: 'JSONRPC' | 'HTTP+JSON',
): Promise<CardServer> {
  const legacy = toLegacyAgentCard({
    ...card,
    supportedInterfaces: card.supportedInterfaces.filter(
      (agentInterface) =>
        agentInterface.protocolBinding === binding &&
        isLegacyVersion(agentInterface.protocolVersion),
    ),
  });
  delete legacy.supportedInterfaces;
  const listening = await listenFetch(
    new Hono().get(AGENT_CARD_ROUTE, (context) => context.json(legacy)).fetch,
  );
  return { ...listening, cardUrl: `${listening.origin}${AGENT_CARD_ROUTE}` };
}
