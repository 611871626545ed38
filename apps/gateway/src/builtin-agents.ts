import type { Agent } from '@agentport/core';
import { createAssistantAgent, createEchoAgent, createTickerAgent } from '@agentport/core/agents';

/** The embedded default agents: `assistant` (which hands off to `echo`), `echo` and `ticker`. */
export function createBuiltinAgents(): Agent[] {
  const echo = createEchoAgent();
  return [createAssistantAgent({ echo }), echo, createTickerAgent()];
}
