import { type JsonBodyFailure, type ReadJsonOptions, readJsonBody } from '@agentport/http';
import type { Context } from 'hono';

/**
 * How deep a JSON body may nest (objects and arrays): an A2A request's own structure is a few
 * levels, and the rest is the caller's metadata and data parts. The SDK stores a message as sent
 * and answers with it; one nested thousands deep overflows the stack of every answer and every
 * task list holding it.
 */
export const MAX_BODY_DEPTH = 64;

/** Why a body nested deeper than {@link MAX_BODY_DEPTH} is refused. */
export const TOO_DEEP = `The body nests deeper than ${MAX_BODY_DEPTH} levels.`;

/**
 * A request body read the way Express's `express.json()` reads it; `tooDeep` when it is JSON but
 * nests deeper than {@link MAX_BODY_DEPTH}.
 */
export type JsonBody =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly tooDeep: boolean; readonly reason: string };

/** `express.json()`'s reading (`__proto__` keys kept, an empty body `{}`), deep bodies refused. */
const EXPRESS_JSON: ReadJsonOptions = {
  emptyAsObject: true,
  allowPrototypeKeys: true,
  maxDepth: MAX_BODY_DEPTH,
};
const STRICT_EXPRESS_JSON: ReadJsonOptions = { ...EXPRESS_JSON, strict: true };

/** Why a body is refused, in the words this surface answers with. */
function reasonOf(failure: Exclude<JsonBodyFailure, { kind: 'unreadable' }>): string {
  switch (failure.kind) {
    case 'unsupported_charset':
      return `Unsupported charset "${failure.charset}": JSON is taken in UTF-8 only.`;
    case 'unsupported_encoding':
      return `Unsupported Content-Encoding "${failure.encoding}": send the body uncompressed.`;
    case 'not_utf8':
      return 'The body is not valid UTF-8.';
    case 'too_deep':
      return TOO_DEEP;
    case 'not_json':
    case 'prototype_key':
      return 'Invalid JSON payload.';
  }
}

/**
 * Reads a JSON body like `express.json()` (with @agentport/http's reader): no body gives
 * `undefined`, an empty body `{}`, and invalid JSON (or, when `strict`, a top-level value that is
 * not an object or array) a failure; so do JSON nested deeper than {@link MAX_BODY_DEPTH}
 * (`tooDeep`), a body declared in a charset other than UTF-8 (as `express.json()` refuses one),
 * one that is not UTF-8 (where `express.json()` would put U+FFFD in its place) and one sent with
 * a `Content-Encoding`; `reason` says which. A body that cannot be read (its caller went away)
 * throws what reading threw, for the app's error handler.
 */
export async function readExpressJson(
  context: Context,
  options: { strict: boolean },
): Promise<JsonBody> {
  const read = await readJsonBody(context, options.strict ? STRICT_EXPRESS_JSON : EXPRESS_JSON);
  if (read.ok) return read;
  const { failure } = read;
  if (failure.kind === 'unreadable') throw failure.error;
  return { ok: false, tooDeep: failure.kind === 'too_deep', reason: reasonOf(failure) };
}
