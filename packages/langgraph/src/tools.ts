import { defineTool, type JsonSchema, type Tool } from '@agentport/core';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { isLangChainTool } from '@langchain/core/utils/function_calling';
import { toJsonSchema } from '@langchain/core/utils/json_schema';

/** A LangChain tool as the graph holds it: a name, a description, an input schema, `invoke`. */
export type LangChainToolLike = Pick<
  StructuredToolInterface,
  'name' | 'description' | 'schema' | 'invoke'
>;

/** The JSON Schema of a LangChain tool's input (zod, standard schema or JSON Schema), without `$schema`. */
function parametersOf(tool: LangChainToolLike): JsonSchema {
  const { $schema: _dialect, ...schema } = toJsonSchema(tool.schema as never) as JsonSchema;
  return schema;
}

/**
 * The tools of the graph's tool nodes (a `ToolNode` of `createReactAgent` or of a StateGraph):
 * every node whose runnable holds a `tools` array of LangChain tools, in the order of the nodes.
 */
export function toolsOfGraph(nodes: Readonly<Record<string, unknown>>): LangChainToolLike[] {
  const found: LangChainToolLike[] = [];
  const names = new Set<string>();
  for (const node of Object.values(nodes)) {
    const bound = (node as { bound?: { tools?: unknown } } | undefined)?.bound;
    if (!Array.isArray(bound?.tools)) continue;
    for (const tool of bound.tools as unknown[]) {
      // One tool in two tool nodes is listed once.
      if (!isLangChainTool(tool) || names.has(tool.name)) continue;
      names.add(tool.name);
      found.push(tool as LangChainToolLike);
    }
  }
  return found;
}

/**
 * LangChain tools as AgentPort tools (name, description, JSON Schema of the input), whose
 * `execute` invokes the LangChain tool with the input and the caller's signal.
 */
export function toAgentPortTools(tools: readonly LangChainToolLike[]): Tool[] {
  return tools.map((tool) =>
    defineTool({
      name: tool.name,
      ...(tool.description !== '' && { description: tool.description }),
      parameters: parametersOf(tool),
      async execute(args, options) {
        return await tool.invoke(args as never, {
          ...(options.signal !== undefined && { signal: options.signal }),
        });
      },
    }),
  );
}
