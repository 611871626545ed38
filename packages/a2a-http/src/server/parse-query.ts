import { InvalidInputError } from '@agentport/core';
import type * as z from 'zod';
import { describeIssues } from '../wire/task-schemas.ts';

/** Parses a request's query parameters with `schema`; a mismatch is a 400 `invalid_input`. */
export function parseQuery<TSchema extends z.ZodType>(
  query: Record<string, string>,
  schema: TSchema,
): z.output<TSchema> {
  const result = schema.safeParse(query);
  if (result.success) return result.data;
  const field = result.error.issues[0]?.path.join('.');
  throw new InvalidInputError(`Invalid query parameter ${describeIssues(result.error)}`, {
    ...(field === undefined ? {} : { field }),
  });
}
