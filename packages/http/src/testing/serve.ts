import type { IncomingMessage } from 'node:http';
import { afterEach } from 'vitest';
import { type FetchApp, listen } from '../node/listen.ts';

/** A server for one test on 127.0.0.1 and a free port; `close` stops it. */
export interface TestServer {
  url: string;
  close(): Promise<void>;
}

/** Serves an app with `listen` (or a RestServer's own listen) until `close`. */
export async function serve(
  start: FetchApp | ((options: Parameters<typeof listen>[1]) => Promise<void>),
): Promise<TestServer> {
  const controller = new AbortController();
  let url = '';
  const options = {
    signal: controller.signal,
    shutdownTimeoutMs: 200,
    onListen: (address: { url: string }) => {
      url = address.url;
    },
  };
  const stopped = typeof start === 'function' ? start(options) : listen(start, options);
  while (url === '') {
    const failed = await Promise.race([
      stopped.then(() => true),
      new Promise((resolve) => setTimeout(resolve, 5, false)),
    ]);
    if (failed) throw new Error('the test server stopped before it listened');
  }
  return {
    url,
    close: async () => {
      controller.abort();
      await stopped;
    },
  };
}

/** Something that listens by itself, as a RestServer does. */
interface SelfListening {
  listen(options: Parameters<typeof listen>[1]): Promise<void>;
}

/**
 * Serves apps or RestServers on sockets for a test file, each stopped after its test; call it at
 * the file's top level. The function it returns serves one and resolves with its base URL.
 */
export function servedPerTest(): (served: FetchApp | SelfListening) => Promise<string> {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (served) => {
    const running = await serve(
      'listen' in served ? (options) => served.listen(options) : (served as FetchApp),
    );
    servers.push(running);
    return running.url;
  };
}

/** A Node HTTP answer read to its end: the response (status, headers) and its body as text. */
export function readAnswer(
  response: IncomingMessage,
): Promise<{ response: IncomingMessage; text: string }> {
  return new Promise((resolve, reject) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      text += chunk;
    });
    response.on('end', () => resolve({ response, text }));
    response.on('error', reject);
  });
}
