import { type FetchApp, listen } from '@agentport/rest-sse';
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
