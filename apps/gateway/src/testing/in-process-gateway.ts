import { createServer } from 'node:net';
import { listen } from '@agentport/http/node';
import { createBuiltinAgents } from '../builtin-agents.ts';
import { createGateway } from '../gateway.ts';

/**
 * A gateway of the built-in agents (ticker the default, at the root) listening on a free port in
 * this process; resolves with its URL and the function that stops it.
 */
export async function startBuiltinGateway(): Promise<{ url: string; stop: () => Promise<void> }> {
  // The cards name the public URL, which official clients call: it has the port listened on.
  const port = await freePort();
  const gateway = createGateway({
    agents: createBuiltinAgents(),
    defaultAgent: 'ticker',
    publicUrl: `http://127.0.0.1:${port}`,
  });
  const controller = new AbortController();
  let url = '';
  const stopped = listen(gateway.app, {
    port,
    hostname: '127.0.0.1',
    signal: controller.signal,
    shutdownTimeoutMs: 200,
    onListen: (address) => {
      url = address.url;
    },
  });
  while (url === '') await new Promise((resolve) => setTimeout(resolve, 5));
  return {
    url,
    stop: async () => {
      controller.abort();
      await stopped;
    },
  };
}

/** A port free on the loopback address now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
