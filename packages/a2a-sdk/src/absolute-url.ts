import { InvalidInputError } from '@agentport/core';

/** Parses an absolute URL, or throws an InvalidInputError (field `url`) naming what it is for. */
export function parseAbsoluteUrl(url: string, subject: string): URL {
  try {
    return new URL(url);
  } catch (error) {
    throw new InvalidInputError(`${subject} must be an absolute URL, got '${url}'`, {
      field: 'url',
      cause: error,
    });
  }
}
