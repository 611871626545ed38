import { InvalidInputError } from '@agentport/core';

/** The schema the stores use unless told otherwise. */
export const DEFAULT_SCHEMA = 'agentport';

/**
 * A schema name, checked: lower-case letters, digits and underscores, starting with a letter or
 * an underscore, at most 48 characters (it is put in SQL as an identifier, and in the channel
 * name of the notifications, which PostgreSQL cuts at 63 bytes).
 */
export function checkedSchema(schema: string | undefined): string {
  if (schema === undefined) return DEFAULT_SCHEMA;
  if (typeof schema !== 'string' || !/^[a-z_][a-z0-9_]{0,47}$/.test(schema)) {
    throw new InvalidInputError(
      'schema must be lower-case letters, digits and underscores (at most 48), not starting with a digit',
      { field: 'schema' },
    );
  }
  return schema;
}

/** The channel a schema's task changes are notified on. */
export function taskChannel(schema: string): string {
  return `${schema}_tasks`;
}
