import type { Agent } from '@agentport/core';
import {
  createAssistantAgent,
  createBookingAgent,
  createEchoAgent,
  createTickerAgent,
} from '@agentport/core/agents';

/**
 * The embedded default agents: `assistant` (which hands off to `echo`), `echo`, `ticker` and
 * `booking` (a conversation that pauses twice for input).
 */
export function createBuiltinAgents(): Agent[] {
  const echo = createEchoAgent();
  return [createAssistantAgent({ echo }), echo, createTickerAgent(), createBookingAgent()];
}
