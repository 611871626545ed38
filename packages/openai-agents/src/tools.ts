import { defineTool, type JsonSchema, type Tool } from '@agentport/core';
import { type FunctionTool, type Tool as OpenAITool, RunContext } from '@openai/agents';

/** The SDK tools that are function tools (hosted, computer, shell and patch tools have no schema of ours). */
function isFunctionTool<TContext>(
  tool: OpenAITool<TContext>,
): tool is FunctionTool<TContext, never, unknown> {
  return tool.type === 'function';
}

/** A function tool's JSON Schema, without the `$schema` dialect the SDK stamps on it. */
function parametersOf(tool: FunctionTool<never, never, unknown>): JsonSchema {
  const { $schema: _dialect, ...schema } = tool.parameters as JsonSchema;
  return schema;
}

/**
 * The agent's function tools as AgentPort tools (name, description, the JSON Schema the SDK holds
 * for their parameters), whose `execute` delegates to the SDK tool's `invoke`.
 */
export function toolsOf<TContext>(tools: readonly OpenAITool<TContext>[]): Tool[] {
  return tools.filter(isFunctionTool).map((tool) =>
    defineTool({
      name: tool.name,
      ...(tool.description !== '' && { description: tool.description }),
      parameters: parametersOf(tool as FunctionTool<never, never, unknown>),
      async execute(args, options) {
        // A run context of its own: this call is outside any SDK run (the SDK's runs call the tool themselves).
        const context = new RunContext<TContext>();
        return await tool.invoke(context, JSON.stringify(args), {
          ...(options.signal !== undefined && { signal: options.signal }),
        });
      },
    }),
  );
}
