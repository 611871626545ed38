import { serve } from '@hono/node-server';
import { Hono } from 'hono';

// Placeholder entry point until the gateway issue wires every surface.
const port = Number(process.env.PORT ?? 8080);
const hostname = process.env.HOST ?? '127.0.0.1';
const app = new Hono();
app.get('/healthz', (context) => context.json({ status: 'ok' }));
const server = serve({ fetch: app.fetch, port, hostname }, (info) => {
  console.log(`AgentPort gateway listening on http://${hostname}:${info.port}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
