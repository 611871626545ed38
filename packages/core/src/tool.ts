import { Validator } from '@cfworker/json-schema';
import * as z from 'zod';
import { InvalidInputError } from './errors/invalid-input-error.ts';
import { ToolArgumentsError } from './errors/tool-arguments-error.ts';

/** A JSON Schema document, as a plain object. */
export type JsonSchema = Record<string, unknown>;

/** Options passed to a tool's `execute`. */
export interface ToolExecuteOptions {
  /** Aborted when the run that called the tool is aborted. */
  signal?: AbortSignal;
  /** The id of the `tool-call` event this execution answers. */
  toolCallId?: string;
}

/** A tool an agent can call: a name, a description, JSON Schema parameters and an execute function. */
export interface Tool<TOutput = unknown> {
  readonly name: string;
  readonly description?: string;
  /** The JSON Schema of the arguments object. */
  readonly parameters: JsonSchema;
  /** Validates `input` against `parameters` (throwing {@link ToolArgumentsError}), then runs the tool. */
  execute(input: unknown, options?: ToolExecuteOptions): Promise<TOutput>;
}

/** What {@link defineTool} takes: parameters as a zod schema or a JSON Schema object. */
export interface ToolDefinition<TArgs, TOutput, TParameters> {
  name: string;
  description?: string;
  parameters: TParameters;
  execute(args: TArgs, options: ToolExecuteOptions): TOutput | Promise<TOutput>;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/**
 * Whether a value is a zod 3 schema (`_def` and `safeParse`, no `_zod`): taken for a JSON Schema
 * it would fail only when the tool is called, far from the mistake.
 */
function isZod3Schema(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    '_def' in value &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function'
  );
}

function createValidator(
  name: string,
  parameters: z.ZodType | JsonSchema,
): { schema: JsonSchema; validate: (input: unknown) => unknown } {
  if (isZodSchema(parameters)) {
    // What a caller sends (defaults optional, transforms allowed), with a plain object's unknown
    // keys refused as the output side says: they are dropped anyway, and tool-calling APIs (strict
    // function schemas) want `additionalProperties: false`. Loose objects keep `true`.
    const schema = z.toJSONSchema(parameters, {
      target: 'draft-2020-12',
      io: 'input',
      override: ({ zodSchema, jsonSchema }) => {
        const { def } = zodSchema._zod;
        if (def.type === 'object' && def.catchall === undefined) {
          jsonSchema.additionalProperties = false;
        }
      },
    }) as JsonSchema;
    return {
      schema,
      validate: (input) => {
        const result = parameters.safeParse(input);
        if (result.success) return result.data;
        const issue = result.error.issues[0];
        const path = issue?.path.length ? `${issue.path.join('.')}: ` : '';
        throw new ToolArgumentsError(name, `${path}${issue?.message ?? 'invalid'}`);
      },
    };
  }
  if (isZod3Schema(parameters)) {
    throw new InvalidInputError(
      `Tool '${name}' parameters are a zod 3 schema: use zod 4 or a JSON Schema object`,
      { field: 'parameters' },
    );
  }
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
    throw new InvalidInputError(`Tool '${name}' parameters must be a JSON Schema object`, {
      field: 'parameters',
    });
  }
  const validator = new Validator(parameters as never, '2020-12', false);
  return {
    schema: parameters,
    validate: (input) => {
      const result = validator.validate(input);
      if (result.valid) return input;
      const error =
        result.errors.find((entry) => entry.keyword !== 'properties') ?? result.errors[0];
      const location = error?.instanceLocation.replace(/^#\/?/, '') ?? '';
      throw new ToolArgumentsError(
        name,
        `${location ? `${location}: ` : ''}${error?.error ?? 'invalid'}`,
      );
    },
  };
}

/**
 * Defines a tool whose arguments are validated before `execute` runs.
 *
 * @example
 * const add = defineTool({
 *   name: 'add',
 *   description: 'Adds two numbers',
 *   parameters: z.object({ a: z.number(), b: z.number() }),
 *   execute: ({ a, b }) => a + b,
 * });
 */
export function defineTool<TSchema extends z.ZodType, TOutput>(
  definition: ToolDefinition<z.output<TSchema>, TOutput, TSchema>,
): Tool<TOutput>;
export function defineTool<TArgs = Record<string, unknown>, TOutput = unknown>(
  definition: ToolDefinition<TArgs, TOutput, JsonSchema>,
): Tool<TOutput>;
export function defineTool(
  definition: ToolDefinition<unknown, unknown, z.ZodType | JsonSchema>,
): Tool<unknown> {
  const { name, description, execute } = definition;
  if (!TOOL_NAME.test(name)) {
    throw new InvalidInputError(
      `Invalid tool name '${name}': use 1 to 64 letters, digits, '-' or '_'`,
      { field: 'name' },
    );
  }
  const { schema, validate } = createValidator(name, definition.parameters);
  return {
    name,
    ...(description === undefined ? {} : { description }),
    parameters: schema,
    async execute(input, options = {}) {
      return execute(validate(input), options);
    },
  };
}
