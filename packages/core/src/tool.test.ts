import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AgentPortError } from './errors/agentport-error.ts';
import { defineTool } from './tool.ts';

describe('defineTool', () => {
  const add = defineTool({
    name: 'add',
    description: 'Adds two numbers',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => a + b,
  });

  it('converts a zod schema to JSON Schema parameters', () => {
    expect(add.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
  });

  it('describes what a caller sends: defaults are optional, transforms are allowed', async () => {
    const scaled = defineTool({
      name: 'scaled',
      parameters: z.object({
        text: z.string().transform((value) => value.trim()),
        times: z.number().default(3),
      }),
      execute: ({ text, times }) => text.repeat(times),
    });
    expect(scaled.parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' }, times: { type: 'number', default: 3 } },
      required: ['text'],
      additionalProperties: false,
    });
    const loose = defineTool({
      name: 'loose',
      parameters: z.looseObject({ a: z.string() }),
      execute: () => 'ok',
    });
    expect(loose.parameters).toMatchObject({ additionalProperties: {} });
    await expect(scaled.execute({ text: ' ab ' })).resolves.toBe('ababab');
  });

  it('runs execute with validated arguments', async () => {
    await expect(add.execute({ a: 2, b: 3 })).resolves.toBe(5);
  });

  it('rejects arguments that fail the zod schema before execute runs', async () => {
    let ran = false;
    const tool = defineTool({
      name: 'guarded',
      parameters: z.object({ n: z.number() }),
      execute: () => {
        ran = true;
      },
    });
    const error = await tool.execute({ n: 'one' }).catch((caught: unknown) => caught);
    expect(AgentPortError.isInstance(error) && error.code).toBe('invalid_tool_arguments');
    expect(String((error as Error).message)).toContain("'guarded'");
    expect(ran).toBe(false);
  });

  it('validates against a plain JSON Schema', async () => {
    const greet = defineTool<{ name: string }, string>({
      name: 'greet',
      parameters: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 1 } },
        required: ['name'],
        additionalProperties: false,
      },
      execute: ({ name }) => `hello ${name}`,
    });
    await expect(greet.execute({ name: 'ada' })).resolves.toBe('hello ada');
    await expect(greet.execute({})).rejects.toMatchObject({ code: 'invalid_tool_arguments' });
    await expect(greet.execute({ name: 'ada', extra: 1 })).rejects.toMatchObject({
      code: 'invalid_tool_arguments',
    });
    await expect(greet.execute({ name: 42 })).rejects.toThrow(/name/);
  });

  it('passes the signal and call id to execute', async () => {
    const controller = new AbortController();
    const seen = defineTool({
      name: 'seen',
      parameters: { type: 'object' },
      execute: (_args, options) => options,
    });
    const options = await seen.execute({}, { signal: controller.signal, toolCallId: 'call_1' });
    expect(options).toEqual({ signal: controller.signal, toolCallId: 'call_1' });
  });

  it('refuses an invalid tool name or non-object parameters', () => {
    const execute = () => 1;
    expect(() => defineTool({ name: 'has space', parameters: {}, execute })).toThrow(/tool name/);
    expect(() =>
      defineTool({ name: 'ok', parameters: [] as unknown as Record<string, unknown>, execute }),
    ).toThrow(/JSON Schema object/);
  });

  it('refuses a zod 3 schema when the tool is defined, not when it is called', () => {
    // What zod 3 schemas carry: `_def` and `safeParse`, and no `_zod`.
    const zod3 = { _def: { typeName: 'ZodObject' }, safeParse: () => ({ success: true }) };
    expect(() =>
      defineTool({
        name: 'old',
        parameters: zod3 as unknown as Record<string, unknown>,
        execute: () => 1,
      }),
    ).toThrow(/zod 3 schema: use zod 4/);
  });
});
