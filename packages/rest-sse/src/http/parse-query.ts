import { InvalidInputError } from '@agentport/core';
import type * as z from 'zod';

/**
 * Parses a request's query parameters with `schema`; a mismatch is a 400 `invalid_input` naming
 * the first issue (`Invalid query parameter wait: must be a number`) and its field.
 *
 * @example
 * const { limit } = parseQuery(context.req.query(), z.object({ limit: z.string().optional() }));
 */
export function parseQuery<TSchema extends z.ZodType>(
  query: Record<string, string>,
  schema: TSchema,
): z.output<TSchema> {
  const result = schema.safeParse(query);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.');
  const what =
    issue === undefined ? 'invalid' : field ? `${field}: ${issue.message}` : issue.message;
  throw new InvalidInputError(`Invalid query parameter ${what}`, {
    ...(field === undefined ? {} : { field }),
  });
}
