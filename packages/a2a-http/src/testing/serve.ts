import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FetchApp, listen } from '@agentport/http/node';
import { afterAll, beforeAll } from 'vitest';
import type { A2AHttpServer } from '../server/create-a2a-http-server.ts';

/** A server listening on 127.0.0.1 for a test, and how to stop it. */
export interface Served {
  url: string;
  port: number;
  /** Stops the server and resolves once the port is released. */
  stop(): Promise<void>;
}

/** Serves an A2A server (through its own `listen`) or any fetch app on a free loopback port. */
export async function serve(target: A2AHttpServer | FetchApp): Promise<Served> {
  const controller = new AbortController();
  let stopped: Promise<void> = Promise.resolve();
  const address = await new Promise<{ url: string; port: number }>((resolve, reject) => {
    const options = {
      port: 0,
      hostname: '127.0.0.1',
      signal: controller.signal,
      onListen: resolve,
    };
    stopped = 'runner' in target ? target.listen(options) : listen(target, options);
    stopped.catch(reject);
  });
  return {
    ...address,
    async stop() {
      controller.abort();
      await stopped;
    },
  };
}

/**
 * Listens with a raw `node:http` server (one that misbehaves where a Hono app cannot) on a free
 * loopback port; `stop` closes its connections too.
 */
export async function serveNode(server: Server): Promise<Served> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Serves a raw `node:http` server (see {@link serveNode}) for the whole test file: it listens
 * before the first test and stops after the last. Its `url` is known once the tests run.
 */
export function serveNodeForFile(server: Server): { readonly url: string } {
  let served: Served | undefined;
  beforeAll(async () => {
    served = await serveNode(server);
  });
  afterAll(() => served?.stop());
  return {
    get url() {
      if (served === undefined) throw new Error('The server listens once the tests run');
      return served.url;
    },
  };
}

/** Posts a JSON body (or a raw string) to an app in memory. */
export function postJson(
  app: { request: (path: string, init?: RequestInit) => Response | Promise<Response> },
  path: string,
  body: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<Response> {
  return Promise.resolve(
    app.request(path, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}
