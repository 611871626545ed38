import { defineAgent, defineTool } from '@agentport/core';
import { createEchoAgent } from '@agentport/core/agents';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { agentCardSchema } from '../wire/agent-card.ts';
import { createA2AHttpServer } from './create-a2a-http-server.ts';

const shout = defineTool({
  name: 'shout',
  description: 'Upper-cases a text',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text.toUpperCase(),
});

const loud = defineAgent({
  name: 'loud',
  description: 'Shouts',
  tools: [shout],
  async *run(input, context) {
    return yield* context.callTool(shout, { text: input });
  },
});

describe('GET /.well-known/agent.json', () => {
  it('answers the card with skills derived from the tools and the endpoint of the request', async () => {
    const { app } = createA2AHttpServer({ agent: loud, card: { version: '2.1.0' } });
    const response = await app.request('http://agents.example:8080/.well-known/agent.json');
    expect(response.status).toBe(200);
    const card = await response.json();
    expect(card).toEqual({
      name: 'loud',
      endpoint: 'http://agents.example:8080',
      description: 'Shouts',
      version: '2.1.0',
      capabilities: { streaming: true, longPolling: true },
      skills: [
        {
          id: 'shout',
          name: 'shout',
          description: 'Upper-cases a text',
          inputSchema: expect.objectContaining({ type: 'object', required: ['text'] }),
        },
      ],
    });
    expect(agentCardSchema.safeParse(card).success).toBe(true);
  });

  it('keeps the mount prefix in the derived endpoint', async () => {
    const gateway = new Hono();
    gateway.route('/agents/echo', createA2AHttpServer({ agent: createEchoAgent() }).app);
    const response = await gateway.request('https://gw.example/agents/echo/.well-known/agent.json');
    expect((await response.json()).endpoint).toBe('https://gw.example/agents/echo');
  });

  it('uses the configured endpoint and card fields over derived ones', async () => {
    const { app } = createA2AHttpServer({
      agent: createEchoAgent(),
      card: {
        name: 'Echo Service',
        endpoint: 'https://public.example/echo',
        description: 'Says it back',
        skills: [{ id: 'repeat', name: 'Repeat' }],
      },
    });
    const card = await (await app.request('http://internal:9000/.well-known/agent.json')).json();
    expect(card).toMatchObject({
      name: 'Echo Service',
      endpoint: 'https://public.example/echo',
      description: 'Says it back',
      skills: [{ id: 'repeat', name: 'Repeat' }],
    });
  });

  it('ignores X-Forwarded-* unless trustProxyHeaders is set, and then takes only valid values', async () => {
    const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'public.example' };
    const untrusted = createA2AHttpServer({ agent: createEchoAgent() }).app;
    const plain = await untrusted.request('http://internal:9000/.well-known/agent.json', {
      headers,
    });
    expect((await plain.json()).endpoint).toBe('http://internal:9000');

    const trusted = createA2AHttpServer({ agent: createEchoAgent(), trustProxyHeaders: true }).app;
    const proxied = await trusted.request('http://internal:9000/.well-known/agent.json', {
      headers: { 'x-forwarded-proto': 'https, http', 'x-forwarded-host': 'public.example, proxy' },
    });
    expect((await proxied.json()).endpoint).toBe('https://public.example');
    const forged = await trusted.request('http://internal:9000/.well-known/agent.json', {
      headers: { 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'evil.example/path?x=' },
    });
    expect((await forged.json()).endpoint).toBe('http://internal:9000');
  });

  it('builds the endpoint on publicUrl, not on the Host or X-Forwarded-* a client sends', async () => {
    const server = createA2AHttpServer({
      agent: createEchoAgent(),
      publicUrl: 'https://agents.example/gw/',
      trustProxyHeaders: true,
    });
    const parent = new Hono({ strict: false });
    parent.route('/', server.app);
    parent.route('/agents/echo', server.app);
    const headers = { host: 'evil.example:666', 'x-forwarded-host': 'evil.example' };
    const root = await parent.request('http://evil.example:666/.well-known/agent.json', {
      headers,
    });
    expect((await root.json()).endpoint).toBe('https://agents.example/gw');
    const mounted = await parent.request(
      'http://evil.example:666/agents/echo/.well-known/agent.json/',
      {
        headers,
      },
    );
    expect((await mounted.json()).endpoint).toBe('https://agents.example/gw/agents/echo');
  });

  it('answers 405 with Allow for another method', async () => {
    const { app } = createA2AHttpServer({ agent: createEchoAgent() });
    const response = await app.request('/.well-known/agent.json', { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(await response.json()).toEqual({
      error: { code: 'method_not_allowed', message: expect.stringContaining('POST') },
    });
  });
});

describe('card security', () => {
  it('advertises the configured security schemes, and the client schema keeps them', async () => {
    const securitySchemes = { bearer: { type: 'http', scheme: 'bearer' } };
    const security = [{ bearer: [] }];
    const { app } = createA2AHttpServer({
      agent: createEchoAgent(),
      card: { securitySchemes, security },
    });
    const card = await (await app.request('http://host.test/.well-known/agent.json')).json();
    expect(card).toMatchObject({ securitySchemes, security });
    expect(agentCardSchema.parse(card)).toMatchObject({ securitySchemes, security });
  });
});
