import { InvalidInputError } from '@agentport/core';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 100;

/** The cursor of the page after a task of this creation order. */
export function encodeCursor(sequence: number): string {
  return btoa(`seq:${sequence}`).replace(/=+$/, '');
}

/** The creation order a cursor names; InvalidInputError (`field: 'cursor'`) for one it did not make. */
export function decodeCursor(cursor: string): number {
  let decoded = '';
  try {
    decoded = atob(cursor);
  } catch {
    // Not base64: reported as an invalid cursor below.
  }
  const match = /^seq:(\d{1,15})$/.exec(decoded);
  if (match?.[1] === undefined) throw new InvalidInputError('Invalid cursor', { field: 'cursor' });
  return Number(match[1]);
}

/** A listing's page size, checked: 1 to 100, default 50. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new InvalidInputError(`limit must be an integer from 1 to ${MAX_LIMIT}`, {
      field: 'limit',
    });
  }
  return limit;
}
