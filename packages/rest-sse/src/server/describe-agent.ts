import type { Agent, JsonSchema } from '@agentport/core';

/** How `GET /` and `GET /{name}` show a registered agent. */
export interface AgentSummary {
  /** The name it is registered under (its route). */
  name: string;
  description?: string;
  tools: { name: string; description?: string; parameters: JsonSchema }[];
}

/** Summarises a registered agent for the listing routes. */
export function describeAgent(name: string, agent: Agent): AgentSummary {
  return {
    name,
    ...(agent.description === undefined ? {} : { description: agent.description }),
    tools: agent.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.parameters,
    })),
  };
}
