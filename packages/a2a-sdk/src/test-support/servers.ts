import type { Agent } from '@agentport/core';
import { Hono } from 'hono';
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

/** Serves an agent the way the gateway will: mounted at `/a2a/{name}` of a root Hono app. */
export async function serveAgent(
  agent: Agent,
  options: A2ASdkServerOptions = {},
): Promise<ServedAgent> {
  let root: Hono | undefined;
  const listening = await listenFetch((request) =>
    root === undefined ? new Response('starting', { status: 503 }) : root.fetch(request),
  );
  const baseUrl = `${listening.origin}/a2a/${agent.name}`;
  const server = createA2ASdkServer(
    agent,
    {
      name: agent.name,
      version: '1.0.0',
      description: agent.description ?? agent.name,
      url: baseUrl,
    },
    options,
  );
  root = new Hono().route(`/a2a/${agent.name}`, server.app);
  return {
    ...listening,
    baseUrl,
    cardUrl: `${baseUrl}/.well-known/agent-card.json`,
    server,
  };
}
