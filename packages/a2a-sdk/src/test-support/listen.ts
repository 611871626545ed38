import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

/** A server listening on 127.0.0.1 on a free port. */
export interface Listening {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Serves a fetch handler (a Hono app) with @hono/node-server on 127.0.0.1, port 0. */
export async function listenFetch(
  fetch: (request: Request) => Response | Promise<Response>,
): Promise<Listening> {
  const server = serve({ fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  if (!server.listening) await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => closeServer(server) };
}

/** Serves a Node request listener (an Express app) on 127.0.0.1, port 0. */
export async function listenNode(listener: Parameters<typeof createServer>[1]): Promise<Listening> {
  const server = createServer(listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => closeServer(server) };
}
