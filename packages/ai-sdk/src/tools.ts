import { AgentFailureError, defineTool, type JsonSchema, type Tool } from '@agentport/core';
import { type Tool as AiSdkTool, asSchema, type ToolSet } from 'ai';

/** The JSON Schema of an AI SDK tool's input, or any object when the schema computes it lazily. */
function parametersOf(tool: AiSdkTool): JsonSchema {
  const { jsonSchema } = asSchema(tool.inputSchema);
  // A schema whose JSON Schema comes as a promise cannot be listed synchronously on a card.
  if (typeof (jsonSchema as PromiseLike<unknown>).then === 'function') return { type: 'object' };
  const { $schema: _dialect, ...schema } = jsonSchema as JsonSchema;
  return schema;
}

/** The last value of what a tool's `execute` gives: a value, a promise, or a stream of previews. */
async function settle(result: unknown): Promise<unknown> {
  if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result) {
    let last: unknown;
    for await (const value of result as AsyncIterable<unknown>) last = value;
    return last;
  }
  return await result;
}

/**
 * The agent's AI SDK tools as AgentPort tools (name, description, JSON Schema of the input), whose
 * `execute` delegates to the AI SDK tool's own (a tool without one fails when called).
 */
export function toolsOf(agentName: string, tools: ToolSet | undefined): Tool[] {
  return Object.entries(tools ?? {}).map(([name, tool]) =>
    defineTool({
      name,
      // A description computed per call from the run's context cannot be listed: it is left out.
      ...(typeof tool.description === 'string' && { description: tool.description }),
      parameters: parametersOf(tool),
      async execute(args, options) {
        if (tool.execute === undefined) {
          throw new AgentFailureError({
            agentName,
            message: `Tool '${name}' of agent '${agentName}' has no execute function`,
          });
        }
        const result = tool.execute(args, {
          toolCallId: options.toolCallId ?? name,
          messages: [],
          ...(options.signal !== undefined && { abortSignal: options.signal }),
          context: undefined,
        });
        return await settle(result);
      },
    }),
  );
}
