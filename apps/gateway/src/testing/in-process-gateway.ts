import { createServer } from 'node:net';
import { listen } from '@agentport/http/node';
import { createBuiltinAgents } from '../builtin-agents.ts';
import { createGateway, type GatewayOptions } from '../gateway.ts';

/** A gateway listening in this process: its URL and the function that stops it. */
export interface RunningGateway {
  url: string;
  stop: () => Promise<void>;
}

/**
 * A gateway of the built-in agents (ticker the default, at the root) listening on a free port in
 * this process.
 */
export function startBuiltinGateway(): Promise<RunningGateway> {
  return startGateway({ agents: createBuiltinAgents(), defaultAgent: 'ticker' });
}

/**
 * A gateway of these agents listening on a free port in this process, served as `agentport serve`
 * serves it (the Node fast path beside the Hono app).
 */
export async function startGateway(
  options: Pick<
    GatewayOptions,
    'agents' | 'defaultAgent' | 'rejoinGraceMs' | 'store' | 'conversations'
  >,
): Promise<RunningGateway> {
  // The cards name the public URL, which official clients call: it has the port listened on.
  const port = await freePort();
  const gateway = createGateway({ ...options, publicUrl: `http://127.0.0.1:${port}` });
  const controller = new AbortController();
  let url = '';
  const stopped = listen(gateway.app, {
    port,
    hostname: '127.0.0.1',
    signal: controller.signal,
    shutdownTimeoutMs: 200,
    handleNode: gateway.handleNode,
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
