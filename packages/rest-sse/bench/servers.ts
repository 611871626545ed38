import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defineAgent } from '@agentport/core';
import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { Hono } from 'hono';
import { streamSSE as honoStreamSSE } from 'hono/streaming';
import { createRestServer } from '../src/index.ts';

/** The servers the benchmark compares; each runs alone in a child process. */
export const SERVER_KINDS = ['raw', 'agentport', 'agentport-web', 'hono'] as const;
export type ServerKind = (typeof SERVER_KINDS)[number];

/** Events per benchmark stream: nine text deltas and `done`. */
export const EVENTS_PER_STREAM = 10;

const deltas = Array.from({ length: EVENTS_PER_STREAM - 1 }, (_, index) => `word${index} `);

function createBenchAgent() {
  return defineAgent({
    name: 'bench',
    async *run() {
      for (const delta of deltas) yield { type: 'text-delta', delta };
    },
  });
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** A hand-written node:http server: the baseline (JSON invoke, SSE stream, idle stream). */
function rawHandler(request: IncomingMessage, response: ServerResponse): void {
  void readBody(request).then((text) => {
    const { input } = JSON.parse(text) as { input: string };
    if (request.url?.endsWith('/invoke')) {
      const body = JSON.stringify({ result: input });
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (request.url?.startsWith('/idle/')) {
      response.write(`event: text-delta\nid: 1\ndata: ${JSON.stringify({ delta: 'tick 1' })}\n\n`);
      const timer = setTimeout(() => response.end(), 60_000);
      response.on('close', () => clearTimeout(timer));
      return;
    }
    let id = 0;
    let output = '';
    for (const delta of deltas) {
      output += delta;
      id += 1;
      response.write(
        `event: text-delta\nid: ${id}\ndata: ${JSON.stringify({ type: 'text-delta', delta })}\n\n`,
      );
    }
    response.end(
      `event: done\nid: ${id + 1}\ndata: ${JSON.stringify({ type: 'done', output })}\n\n`,
    );
  });
}

function honoApp(): Hono {
  const app = new Hono();
  const agent = createBenchAgent();
  app.post('/bench/stream', async (context) => {
    const { input } = await context.req.json<{ input: string }>();
    return honoStreamSSE(context, async (stream) => {
      let id = 0;
      for await (const event of agent.stream(input)) {
        id += 1;
        await stream.writeSSE({ event: event.type, data: JSON.stringify(event), id: String(id) });
      }
    });
  });
  return app;
}

/** Starts one kind of server on 127.0.0.1 and resolves with its port. */
export async function startServer(kind: ServerKind, signal: AbortSignal): Promise<number> {
  if (kind === 'raw') {
    const server = createServer(rawHandler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    signal.addEventListener('abort', () => server.close());
    return (server.address() as AddressInfo).port;
  }
  if (kind === 'hono') {
    const { serve } = await import('@hono/node-server');
    return new Promise((resolve) => {
      const server = serve({ fetch: honoApp().fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
        resolve(info.port),
      );
      signal.addEventListener('abort', () => server.close());
    });
  }
  const rest = createRestServer({ directNodeStreaming: kind === 'agentport' })
    .register('bench', createBenchAgent())
    .register('echo', createEchoAgent())
    .register('idle/ticker', createTickerAgent());
  return new Promise((resolve, reject) => {
    rest.listen({ port: 0, signal, onListen: ({ port }) => resolve(port) }).catch(reject);
  });
}
