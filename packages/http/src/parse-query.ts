import type * as z from 'zod';
import { invalidInputOf } from './invalid-input-of.ts';

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
  throw invalidInputOf(result.error, 'query', 'Invalid query parameter ');
}
