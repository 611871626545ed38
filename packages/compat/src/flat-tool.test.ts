import { InvalidInputError } from '@agentport/core';
import { createAssistantAgent } from '@agentport/core/agents';
import { describe, expect, it } from 'vitest';
import type { FlatToolDef, ToolDef } from './definitions.ts';
import { fromFlatToolDef, toFlatToolDef, toJsonObjectSchema } from './flat-tool.ts';
import { fromTools } from './from-agent.ts';

const flatTools: FlatToolDef[] = [
  {
    type: 'function',
    name: 'lookup_invoice',
    description: 'Looks up an invoice',
    parameters: {
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      additionalProperties: false,
    },
    strict: true,
  },
  {
    type: 'function',
    name: 'no_description',
    description: '',
    parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
    strict: false,
  },
  {
    type: 'function',
    name: 'open_object',
    description: 'Takes anything',
    parameters: {
      type: 'object',
      description: 'Free-form options',
      properties: { mode: { enum: ['a', 'b'] } },
      required: [],
      additionalProperties: true,
    },
    strict: false,
  },
];

describe('toFlatToolDef', () => {
  it('moves the function fields up a level', () => {
    expect(
      toFlatToolDef({
        type: 'function',
        function: {
          name: 'lookup_invoice',
          description: 'Looks up an invoice',
          parameters: {
            type: 'object',
            properties: { id: { type: 'string' } },
            required: ['id'],
            additionalProperties: false,
          },
          strict: true,
        },
      }),
    ).toEqual(flatTools[0]);
  });

  it('fills what the flat shape requires: description, parameters and strict', () => {
    expect(toFlatToolDef({ type: 'function', function: { name: 'clock' } })).toEqual({
      type: 'function',
      name: 'clock',
      description: '',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
      strict: false,
    });
  });

  it('states the JSON Schema defaults of parameters and keeps every other keyword', () => {
    expect(
      toJsonObjectSchema({ $schema: 'x', properties: { a: { type: 'number' } } }, 'tool'),
    ).toEqual({
      $schema: 'x',
      type: 'object',
      properties: { a: { type: 'number' } },
      required: [],
      additionalProperties: true,
    });
  });

  it('rejects parameters that are not an object schema', () => {
    const array: ToolDef = {
      type: 'function',
      function: { name: 'list', parameters: { type: 'array' } },
    };
    expect(() => toFlatToolDef(array)).toThrow(InvalidInputError);
  });
});

describe('fromFlatToolDef', () => {
  it('nests the function fields, leaving out an empty description and a false strict', () => {
    expect(fromFlatToolDef(flatTools[1] as FlatToolDef)).toEqual({
      type: 'function',
      function: {
        name: 'no_description',
        parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
      },
    });
    expect(fromFlatToolDef(flatTools[0] as FlatToolDef).function.strict).toBe(true);
  });

  it.each(flatTools)('round-trips flat -> nested -> flat unchanged ($name)', (flat) => {
    expect(toFlatToolDef(fromFlatToolDef(flat))).toEqual(flat);
  });

  it('round-trips nested -> flat -> nested unchanged for every ToolDef fromTools makes', () => {
    const nested = fromTools(createAssistantAgent().tools);
    expect(nested.map((tool) => fromFlatToolDef(toFlatToolDef(tool)))).toEqual(nested);
  });

  it.each(flatTools)('round-trips nested -> flat -> nested unchanged ($name, nested)', (flat) => {
    const nested = fromFlatToolDef(flat);
    expect(fromFlatToolDef(toFlatToolDef(nested))).toEqual(nested);
  });
});
