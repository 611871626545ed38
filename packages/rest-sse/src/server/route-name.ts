import { InvalidInputError } from '@agentport/core';

const ROUTE_NAME = /^[a-z0-9_-]{1,64}(?:\/[a-z0-9_-]{1,64})*$/;
const MAX_ROUTE_NAME_LENGTH = 256;

/** Whether a path could name an agent (as registered: no surrounding slashes). */
export function isRouteName(path: string): boolean {
  return path.length <= MAX_ROUTE_NAME_LENGTH && ROUTE_NAME.test(path);
}

/**
 * Checks a registration name and returns it without surrounding slashes: `/`-separated segments
 * of 1 to 64 lower-case letters, digits, `-` or `_`, at most 256 characters in all.
 */
export function normalizeRouteName(name: unknown): string {
  if (typeof name !== 'string') {
    throw new InvalidInputError('Agent route name must be a string', { field: 'name' });
  }
  const trimmed = name.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') {
    throw new InvalidInputError('Agent route name must not be empty', { field: 'name' });
  }
  if (trimmed.length > MAX_ROUTE_NAME_LENGTH || !ROUTE_NAME.test(trimmed)) {
    throw new InvalidInputError(
      `Invalid agent route name '${name}': use '/'-separated segments of 1 to 64 lower-case letters, digits, '-' or '_'`,
      { field: 'name' },
    );
  }
  return trimmed;
}
