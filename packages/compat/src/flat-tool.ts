import { InvalidInputError, type JsonSchema } from '@agentport/core';
import type { FlatToolDef, JsonObjectSchema, ToolDef } from './definitions.ts';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * States the defaults of an object JSON Schema (`properties: {}`, `required: []`,
 * `additionalProperties: true`) and keeps everything else, so it has the shape the Agents SDK
 * expects; no parameters at all is the empty, closed object. Throws when the schema does not describe an object.
 */
export function toJsonObjectSchema(
  parameters: JsonSchema | undefined,
  toolName: string,
): JsonObjectSchema {
  if (parameters === undefined) {
    return { type: 'object', properties: {}, required: [], additionalProperties: false };
  }
  if (!isObject(parameters) || (parameters.type !== undefined && parameters.type !== 'object')) {
    throw new InvalidInputError(
      `Tool '${toolName}' parameters must be a JSON Schema of type 'object'`,
      { field: 'parameters' },
    );
  }
  return {
    ...parameters,
    type: 'object',
    properties: isObject(parameters.properties) ? parameters.properties : {},
    required: Array.isArray(parameters.required) ? (parameters.required as string[]) : [],
    additionalProperties: parameters.additionalProperties ?? true,
  } as JsonObjectSchema;
}

/**
 * Converts a nested ToolDef to the flat shape of the OpenAI Agents SDK and Responses API; a
 * missing description becomes `''`, missing parameters the empty object, missing strict `false`.
 *
 * @example
 * toFlatToolDef({ type: 'function', function: { name: 'clock' } });
 * // { type: 'function', name: 'clock', description: '', parameters: { type: 'object', ... }, strict: false }
 */
export function toFlatToolDef(tool: ToolDef): FlatToolDef {
  const { name, description, parameters, strict } = tool.function;
  return {
    type: 'function',
    name,
    description: description ?? '',
    parameters: toJsonObjectSchema(parameters, name),
    strict: strict ?? false,
  };
}

/**
 * Converts a flat ToolDef back to the nested shape; `toFlatToolDef(fromFlatToolDef(flat))` equals
 * `flat`, and the reverse holds for every ToolDef `fromTools` or this function produces.
 */
export function fromFlatToolDef(tool: FlatToolDef): ToolDef {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description === '' ? {} : { description: tool.description }),
      parameters: tool.parameters,
      ...(tool.strict ? { strict: true } : {}),
    },
  };
}
