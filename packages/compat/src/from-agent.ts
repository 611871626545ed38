import { type Agent, InvalidInputError, type Tool } from '@agentport/core';
import type { AgentDef, Handoff, ToolDef } from './definitions.ts';
import { toJsonObjectSchema } from './flat-tool.ts';

/**
 * The tool name a model calls to hand over to an agent, following the Agents SDK:
 * `transfer_to_` and the name with every character other than a letter or digit made `_`.
 */
export function handoffToolName(agentName: string): string {
  return `transfer_to_${agentName.replace(/[^a-zA-Z0-9]/g, '_')}`;
}

/**
 * Converts tools to ToolDefs in the nested function shape, parameters as JSON Schema with their
 * defaults stated (an empty description is left out).
 *
 * @example
 * fromTools(agent.tools);
 * // [{ type: 'function', function: { name: 'calculator', description: '...', parameters: { ... } } }]
 */
export function fromTools(tools: readonly Tool[]): ToolDef[] {
  return tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: structuredClone(toJsonObjectSchema(tool.parameters, tool.name)),
    },
  }));
}

/** Converts an agent's handoff targets to Handoff descriptors. */
export function fromHandoffs(agents: readonly Agent[]): Handoff[] {
  return agents.map((agent) => ({
    name: agent.name,
    ...(agent.description ? { description: agent.description } : {}),
    tool_name: handoffToolName(agent.name),
  }));
}

/**
 * Converts an agent to an AgentDef: plain JSON, with its handoffs as descriptors (not nested
 * AgentDefs); `tools` and `handoffs` are left out when empty. Two handoffs (or a handoff and a
 * tool) whose tool names are the same (`a-b` and `a_b`) are an `InvalidInputError`.
 *
 * @example
 * const definition = fromAgent(createAssistantAgent());
 * JSON.stringify(definition); // round-trips unchanged
 */
export function fromAgent(agent: Agent): AgentDef {
  // A model tells tools and handoffs apart by name only: two that share one are ambiguous.
  const owners = new Map<string, string>();
  const claim = (name: string, owner: string) => {
    const other = owners.get(name);
    if (other !== undefined) {
      throw new InvalidInputError(
        `Agent '${agent.name}': ${other} and ${owner} share the tool name '${name}'`,
        { field: 'handoffs' },
      );
    }
    owners.set(name, owner);
  };
  for (const tool of agent.tools) claim(tool.name, `tool '${tool.name}'`);
  for (const target of agent.handoffs) {
    claim(handoffToolName(target.name), `the handoff to '${target.name}'`);
  }
  return {
    name: agent.name,
    ...(agent.instructions === undefined ? {} : { instructions: agent.instructions }),
    ...(agent.model === undefined ? {} : { model: agent.model }),
    ...(agent.tools.length > 0 ? { tools: fromTools(agent.tools) } : {}),
    ...(agent.handoffs.length > 0 ? { handoffs: fromHandoffs(agent.handoffs) } : {}),
  };
}
