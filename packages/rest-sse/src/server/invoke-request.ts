import { type InputValue, inputSchema } from '@agentport/http';
import * as z from 'zod';

/** Why an input that is neither a non-empty string nor a list of parts is refused. */
function inputIssue(value: unknown): string {
  if (value === undefined) return 'is required';
  return value === '' ? 'must not be empty' : 'must be a string or a list of parts';
}

/**
 * The `input` of an invoke or a stream: a non-empty string (taken as it is, without a schema's
 * parse: the common request parses as fast as before) or a list of parts (`inputSchema`'s parse,
 * its failures naming the field, as `input.0.bytes`).
 */
const requestInputSchema = z
  .unknown()
  .transform((value, context): InputValue => {
    if (typeof value === 'string' && value.length > 0) return value;
    if (!Array.isArray(value)) {
      context.addIssue({ code: 'custom', message: inputIssue(value), input: value });
      return z.NEVER;
    }
    const parsed = inputSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) {
      context.addIssue({ code: 'custom', message: issue.message, path: issue.path, input: value });
    }
    return z.NEVER;
  })
  .meta(inputSchema.meta() ?? {});

/** An optional id of the request: a non-empty string. */
const idSchema = z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional();

/**
 * The body of `POST /{name}/invoke` and `POST /{name}/stream`: `{ input, contextId?, taskId? }`,
 * `input` a non-empty string or a list of text, data and file parts, `contextId` the
 * conversation it continues, `taskId` the paused task it answers.
 */
export const invokeRequestSchema = z.object(
  {
    input: requestInputSchema,
    contextId: idSchema.meta({ description: 'The conversation the message belongs to' }),
    taskId: idSchema.meta({ description: 'The task waiting for input that the message answers' }),
  },
  { error: 'must be a JSON object with an input' },
);

/** What {@link invokeRequestSchema} parses. */
export type InvokeRequest = z.output<typeof invokeRequestSchema>;
