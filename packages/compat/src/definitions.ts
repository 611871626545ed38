import type { JsonSchema } from '@agentport/core';
import * as z from 'zod';

/** A function's description in the nested (Chat Completions) shape: parameters as JSON Schema. */
export interface FunctionDef {
  name: string;
  description?: string;
  /** The JSON Schema of the arguments object; omitted means no parameters. */
  parameters?: JsonSchema;
  /** Whether the model must follow the schema exactly; omitted means false. */
  strict?: boolean;
}

/** A tool in the nested function shape `{ type: 'function', function: { name, ... } }`. */
export interface ToolDef {
  type: 'function';
  function: FunctionDef;
}

/** The part an object JSON Schema shares in both of the Agents SDK's flavours. */
type JsonObjectSchemaBase = {
  type: 'object';
  properties: Record<string, unknown>;
  required: string[];
  description?: string;
};

/** An object JSON Schema with every default stated, as the OpenAI Agents SDK types it. */
export type JsonObjectSchema =
  | (JsonObjectSchemaBase & { additionalProperties: false })
  | (JsonObjectSchemaBase & { additionalProperties: true });

/** A tool in the flat shape of the OpenAI Agents SDK and the Responses API. */
export type FlatToolDef = {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonObjectSchema;
  strict: boolean;
};

/** A handoff descriptor: the agent it hands over to and the tool name a model calls to do it. */
export interface Handoff {
  /** The name of the agent that takes over. */
  name: string;
  /** What that agent does, so a model knows when to hand over. */
  description?: string;
  /** `transfer_to_<agent_name>`, following the Agents SDK convention. */
  tool_name: string;
}

/** An agent as plain JSON: its identity, tools and handoffs. */
export interface AgentDef {
  name: string;
  instructions?: string;
  model?: string;
  /** Omitted when the agent has no tools. */
  tools?: ToolDef[];
  /** Omitted when the agent has no handoffs. */
  handoffs?: Handoff[];
}

/** A required, non-empty string field, with the messages of the REST surface's `input`. */
const requiredText = () =>
  z
    .string({
      error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string'),
    })
    .min(1, 'must not be empty');

/**
 * The parser of a run request: `{ agent_name, input, stream? }`. An empty `input` is refused, as
 * on the REST surface (`POST /{name}/invoke`), with the same messages.
 */
export const runRequestSchema = z.object(
  {
    agent_name: requiredText(),
    input: requiredText(),
    stream: z.boolean({ error: 'must be a boolean' }).optional(),
  },
  { error: 'must be a JSON object with an agent_name and an input' },
);

/** A run request: which agent runs, on what input, and whether to stream its events. */
export type RunRequest = z.infer<typeof runRequestSchema>;

/** One tool call of a run: its name, its arguments as a JSON string, and its output. */
export interface ToolCallResult {
  name: string;
  /** The arguments, JSON-encoded. */
  input: string;
  /** The output: a string as is, anything else JSON-encoded. */
  output: string;
}

/** The result of a run: the final output and the agent that produced it. */
export interface RunResponse {
  output: string;
  /** The agent that produced the final output, after any handoffs. */
  agent: string;
  /** Every tool call of the run, in the order they were made; omitted when there were none. */
  tool_calls?: ToolCallResult[];
}
