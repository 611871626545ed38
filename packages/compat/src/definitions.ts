import type { JsonSchema, Message } from '@agentport/core';
import * as z from 'zod';
import { documentedInputItems, type InputItem, inputItemsSchema } from './input-items.ts';
import { parsedWith } from './parsed-with.ts';

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

const textInput = z
  .string({
    error: (issue) =>
      issue.input === undefined ? 'is required' : 'must be a string or a list of input items',
  })
  .min(1, 'must not be empty');

/** What documents a run's `input` (its parse runs in a transform, which JSON Schema cannot show). */
const { $schema: _dialect, ...inputJsonSchema } = z.toJSONSchema(
  z.union([z.string().min(1), documentedInputItems]),
  { io: 'input' },
);

/**
 * A run's `input`: a non-empty string (kept as it is), or a list of input items (parsed into core
 * messages, the last one the user's new message; see input-items.ts).
 */
const runInputSchema = z
  .unknown()
  .transform((value, context): string | Message[] => {
    // A non-empty string, the common input, is taken as it is without a schema's parse.
    if (typeof value === 'string' && value.length > 0) return value;
    return Array.isArray(value)
      ? parsedWith(inputItemsSchema, value, context)
      : parsedWith(textInput, value, context);
  })
  .meta({
    ...inputJsonSchema,
    description:
      'A non-empty string, or a list of input items (messages; the last one the new user message)',
  });

/**
 * The parser of a run request: `{ agent_name, input, stream?, conversation_id? }`. An empty
 * `input` is refused, as on the REST surface (`POST /{name}/invoke`), with the same messages; a
 * list of input items is parsed into core messages, a failure naming the field
 * (`input.2.content.0.type`).
 */
export const runRequestSchema = z.object(
  {
    agent_name: requiredText(),
    input: runInputSchema,
    stream: z.boolean({ error: 'must be a boolean' }).optional(),
    conversation_id: z
      .string({ error: 'must be a string' })
      .min(1, 'must not be empty')
      .max(256, 'must be at most 256 characters')
      .optional(),
  },
  { error: 'must be a JSON object with an agent_name and an input' },
);

/** A run request as parsed: its `input` a string, or core messages (the last the new one). */
export type ParsedRunRequest = z.output<typeof runRequestSchema>;

/**
 * A run request: which agent runs, on what input (a string, or a list of input items whose last
 * is the user's new message), in which conversation, and whether to stream its events.
 */
export interface RunRequest {
  agent_name: string;
  input: string | InputItem[];
  stream?: boolean;
  /** The conversation the run continues; without one, the run starts a new one. */
  conversation_id?: string;
}

/** One tool call of a run: its name, its arguments as a JSON string, and its output. */
export interface ToolCallResult {
  name: string;
  /** The arguments, JSON-encoded. */
  input: string;
  /** The output: a string as is, anything else JSON-encoded. */
  output: string;
}

/** What a run that paused asks: the question's text and the task that waits for the answer. */
export interface Interruption {
  question: string;
  task_id: string;
}

/** The result of a run: the final output (or the question it asks) and the agent that gave it. */
export interface RunResponse {
  /** The final output; when the run paused, the question's text (as `interruption.question`). */
  output: string;
  /** The agent that produced the final output, after any handoffs. */
  agent: string;
  /** Every tool call of the run, in the order they were made; omitted when there were none. */
  tool_calls?: ToolCallResult[];
  /** The conversation the run belongs to: the one asked for, or the new one it started. */
  conversation_id: string;
  /** Present when the agent paused: the next run with this `conversation_id` answers it. */
  interruption?: Interruption;
}

/**
 * A run request checked as `runRequestSchema` checks it (a failure names the field), given as
 * sent (`request`, for a Runner to parse again) and as parsed.
 */
export const checkedRunRequestSchema = z
  .unknown()
  .transform((value, context): { request: RunRequest; parsed: ParsedRunRequest } => {
    const parsed = parsedWith(runRequestSchema, value, context);
    return { request: value as RunRequest, parsed };
  });
