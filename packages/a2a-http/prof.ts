import { createEchoAgent } from '@agentport/core/agents';
import { createA2AHttpServer, createRemoteAgent } from './src/index.ts';

const stop = new AbortController();
const server = createA2AHttpServer({ agent: createEchoAgent() });
const url = await new Promise<string>(
  (r) => void server.listen({ signal: stop.signal, onListen: (a) => r(a.url) }),
);
const remote = await createRemoteAgent(url);
for (let i = 0; i < 4000; i++) await remote.invoke('the quick brown fox jumps over the lazy dog');
stop.abort();
