import { InvalidInputError } from '@agentport/core';
import type * as z from 'zod';

/**
 * The 400 `invalid_input` of a failed zod parse: its first issue as `path: message` (`whole` for
 * an issue of the whole value) after `lead`, with the path as the field.
 */
export function invalidInputOf(error: z.ZodError, whole: string, lead = ''): InvalidInputError {
  const issue = error.issues[0];
  const field = issue?.path.join('.') ?? '';
  const message = `${lead}${field === '' ? whole : field}: ${issue?.message ?? 'invalid'}`;
  return new InvalidInputError(message, { field });
}
