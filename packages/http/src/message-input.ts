import { type AgentInput, isBase64, type Message, type Part } from '@agentport/core';
import { randomUuid } from '@agentport/core/internal';
import * as z from 'zod';

// The parts our own JSON surfaces take as `input`, in core's shapes (A2A's, in our words).

const textPartSchema = z.object({ kind: z.literal('text'), text: z.string() });
const dataPartSchema = z.object({
  kind: z.literal('data'),
  data: z.record(z.string(), z.unknown()),
});
const filePartSchema = z
  .object({
    kind: z.literal('file'),
    // A2A lets a file part leave its media type out: it is then just bytes.
    mediaType: z.string().min(1).default('application/octet-stream'),
    name: z.string().optional(),
    url: z.url().optional(),
    bytes: z
      .string()
      .refine(isBase64, { message: 'bytes must be standard base64 (padded, no whitespace)' })
      .optional(),
  })
  .refine((part) => (part.url === undefined) !== (part.bytes === undefined), {
    message: 'a file part needs exactly one of url or bytes',
  });

const PART_SCHEMAS: Readonly<Record<string, z.ZodType<Part>>> = {
  text: textPartSchema,
  data: dataPartSchema,
  file: filePartSchema as z.ZodType<Part>,
};

/** Parses `value` with `schema` inside a transform, its issues kept with their paths. */
function parsedWith<T>(schema: z.ZodType<T>, value: unknown, context: z.RefinementCtx): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    context.addIssue({ code: 'custom', message: issue.message, path: issue.path, input: value });
  }
  return z.NEVER;
}

/**
 * One part of a message: `{ kind: 'text', text }`, `{ kind: 'data', data }` (an object) or
 * `{ kind: 'file', mediaType, name?, url | bytes }` (bytes in standard base64). A failed parse
 * names the field (`kind`, `bytes`, ...).
 */
export const partSchema: z.ZodType<Part, unknown> = z
  .unknown()
  .transform((value, context): Part => {
    const kind =
      typeof value === 'object' && value !== null ? (value as { kind?: unknown }).kind : undefined;
    const schema =
      typeof kind === 'string' && Object.hasOwn(PART_SCHEMAS, kind)
        ? PART_SCHEMAS[kind]
        : undefined;
    if (schema === undefined) {
      const message =
        typeof value === 'object' && value !== null
          ? "kind must be 'text', 'data' or 'file'"
          : 'a part must be an object';
      context.addIssue({
        code: 'custom',
        message,
        path: typeof value === 'object' && value !== null ? ['kind'] : [],
        input: value,
      });
      return z.NEVER;
    }
    return parsedWith(schema, value, context);
  });

const partsInputSchema = z
  .array(partSchema)
  .min(1, { message: 'input must have at least one part' });
const textInputSchema = z
  .string({ error: 'input must be a non-empty string or a list of parts' })
  .min(1, {
    message: 'input must be a non-empty string or a list of parts',
  });

/** What documents an input (the parse itself runs in a transform, which JSON Schema cannot show). */
const documentedInput = z.union([
  z.string().min(1),
  z.array(z.discriminatedUnion('kind', [textPartSchema, dataPartSchema, filePartSchema])).min(1),
]);
const { $schema: _dialect, ...inputJsonSchema } = z.toJSONSchema(documentedInput, { io: 'input' });

/** An `input` of our JSON surfaces: a non-empty string, or a non-empty list of parts. */
export const inputSchema: z.ZodType<string | Part[], unknown> = z
  .unknown()
  .transform((value, context): string | Part[] =>
    parsedWith<string | Part[]>(
      Array.isArray(value) ? partsInputSchema : textInputSchema,
      value,
      context,
    ),
  )
  .meta({
    ...inputJsonSchema,
    description:
      'The message: a non-empty string, or a non-empty list of text, data and file parts',
  });

/** What {@link inputSchema} parses. */
export type InputValue = string | Part[];

/**
 * A parsed `input` as an agent takes it: a string as it is, a list of parts as a user message
 * with a new id.
 */
export function agentInputOf(input: InputValue): AgentInput {
  if (typeof input === 'string') return input;
  const message: Message = { messageId: randomUuid(), role: 'user', parts: input as Part[] };
  return message;
}
