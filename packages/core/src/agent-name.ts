import { InvalidInputError } from './errors/invalid-input-error.ts';

const AGENT_NAME = /^[a-z0-9_-]{1,64}$/;

/** Whether a string is a valid agent name: 1 to 64 lower-case letters, digits, `-` or `_`. */
export function isValidAgentName(name: string): boolean {
  return AGENT_NAME.test(name);
}

/** Throws an {@link InvalidInputError} unless `name` is a valid agent name. */
export function assertAgentName(name: string): void {
  if (!isValidAgentName(name)) {
    throw new InvalidInputError(
      `Invalid agent name '${name}': use 1 to 64 lower-case letters, digits, '-' or '_'`,
      { field: 'name' },
    );
  }
}
