import type { JsonSchema } from '@agentport/core';
import type {
  FunctionTool,
  ModelRequest,
  Handoff as SdkHandoff,
  SerializedTool,
} from '@openai/agents';
import { describe, expectTypeOf, it } from 'vitest';
import type { FlatToolDef, JsonObjectSchema } from './definitions.ts';
import { toFlatToolDef } from './flat-tool.ts';

/** What the SDK sends a model for a function tool (not exported by name). */
type SerializedFunctionTool = Extract<SerializedTool, { type: 'function' }>;

describe('FlatToolDef against the @openai/agents types', () => {
  it('is assignable to the serialized function tool a Model receives', () => {
    expectTypeOf<FlatToolDef>().toExtend<SerializedFunctionTool>();
    expectTypeOf<FlatToolDef>().toExtend<ModelRequest['tools'][number]>();
  });

  it('is assignable to the data part of a FunctionTool and of a handoff-as-tool', () => {
    expectTypeOf<FlatToolDef>().toExtend<
      Pick<FunctionTool, 'type' | 'name' | 'description' | 'parameters' | 'strict'>
    >();
    expectTypeOf<FlatToolDef>().toExtend<ReturnType<SdkHandoff['getHandoffAsFunctionTool']>>();
  });

  it('is plain data, not a runnable FunctionTool (that one needs invoke, needsApproval, ...)', () => {
    expectTypeOf<FlatToolDef>().not.toExtend<FunctionTool>();
  });

  it('needs the object-schema shape: a loose JSON Schema would not be accepted', () => {
    type LooseToolDef = Omit<FlatToolDef, 'parameters'> & { parameters: JsonSchema };
    expectTypeOf<LooseToolDef>().not.toExtend<SerializedFunctionTool>();
    expectTypeOf<JsonObjectSchema>().toExtend<FunctionTool['parameters']>();
    expectTypeOf(toFlatToolDef).returns.toExtend<SerializedFunctionTool>();
  });
});
