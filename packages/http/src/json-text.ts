import { type AgentPortError, InvalidInputError } from '@agentport/core';
import { nestsWithin } from '@agentport/core/internal';
import { parse as parseSecureJson } from 'secure-json-parse';
import { InvalidJsonError } from './errors/invalid-json-error.ts';
import { UnsupportedContentEncodingError } from './errors/unsupported-content-encoding-error.ts';
import { UnsupportedMediaTypeError } from './errors/unsupported-media-type-error.ts';

/** Why a JSON body was not taken, as {@link readJsonText} and `readJsonBody` report it. */
export type JsonBodyFailure =
  /** Its `Content-Type` names a charset other than UTF-8. */
  | { readonly kind: 'unsupported_charset'; readonly charset: string }
  /** It was sent with a `Content-Encoding` (gzip and the like), which is not decoded. */
  | { readonly kind: 'unsupported_encoding'; readonly encoding: string }
  /** Reading it failed (the caller went away, say): `error` is what reading threw. */
  | { readonly kind: 'unreadable'; readonly error: unknown }
  /** It is not well-formed UTF-8. */
  | { readonly kind: 'not_utf8' }
  /** It is not JSON (or, `strict`, its top-level value is not an object or array). */
  | { readonly kind: 'not_json' }
  /** An object in it has a `__proto__` key or a `constructor` key holding a `prototype`. */
  | { readonly kind: 'prototype_key' }
  /** It nests (objects and arrays) deeper than `maxDepth`. */
  | { readonly kind: 'too_deep'; readonly maxDepth: number };

/** A JSON body read: its value (undefined when the request has none), or why it was not taken. */
export type JsonBodyResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly failure: JsonBodyFailure };

/** How {@link readJsonText} and `readJsonBody` take JSON (the defaults are `parseJsonText`'s). */
export interface ReadJsonOptions {
  /** Take only an object or an array at the top, as `express.json()`'s `strict` (default false). */
  strict?: boolean;
  /** How deep objects and arrays may nest (default: no limit). */
  maxDepth?: number;
  /** Read an empty body as `{}`, as `express.json()` does (default: an empty body is not JSON). */
  emptyAsObject?: boolean;
  /**
   * Keep `__proto__` keys (and `constructor.prototype`), as `JSON.parse` and `express.json()` do
   * (default false: such a body is refused as `prototype_key`).
   */
  allowPrototypeKeys?: boolean;
}

/** Why a body with a prototype-changing key is refused. */
const PROTOTYPE_KEY = 'body: objects must not have a __proto__ key or a constructor.prototype';

/** The UTF-8 byte-order mark, as decoded. */
const BYTE_ORDER_MARK = 0xfeff;

/** A decoder that throws on ill-formed UTF-8 and keeps a byte-order mark for us to drop. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const NOT_UTF8: JsonBodyResult = { ok: false, failure: { kind: 'not_utf8' } };
const NOT_JSON: JsonBodyResult = { ok: false, failure: { kind: 'not_json' } };
const PROTOTYPE_KEY_FOUND: JsonBodyResult = { ok: false, failure: { kind: 'prototype_key' } };

/** Decodes UTF-8 without a leading byte-order mark, or undefined when it is ill-formed. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
  return text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
}

function parseValue(source: string, allowPrototypeKeys: boolean): JsonBodyResult {
  try {
    // `JSON.parse` and a pattern test of the text; objects are scanned only when it names
    // `__proto__` or `constructor`.
    return { ok: true, value: allowPrototypeKeys ? JSON.parse(source) : parseSecureJson(source) };
  } catch {
    if (allowPrototypeKeys) return NOT_JSON;
  }
  // Bad JSON, or a key refused: plain JSON.parse tells which (only on this failing path).
  try {
    JSON.parse(source);
  } catch {
    return NOT_JSON;
  }
  return PROTOTYPE_KEY_FOUND;
}

/**
 * Reads JSON text (or UTF-8 bytes, a byte-order mark dropped) into a result rather than throwing:
 * `not_utf8`, `not_json`, `prototype_key` (unless `allowPrototypeKeys`) or `too_deep` (past
 * `maxDepth`); see {@link ReadJsonOptions}. What `parseJsonText` and `readJsonBody` are built on.
 */
export function readJsonText(
  source: string | Uint8Array,
  options: ReadJsonOptions = {},
): JsonBodyResult {
  const text = typeof source === 'string' ? source : decodeUtf8(source);
  if (text === undefined) return NOT_UTF8;
  if (text.length === 0 && options.emptyAsObject === true) return { ok: true, value: {} };
  if (options.strict === true) {
    const first = text.trimStart()[0];
    if (first !== '{' && first !== '[') return NOT_JSON;
  }
  const parsed = parseValue(text, options.allowPrototypeKeys === true);
  const { maxDepth } = options;
  if (!parsed.ok || maxDepth === undefined || nestsWithin(parsed.value, maxDepth)) return parsed;
  return { ok: false, failure: { kind: 'too_deep', maxDepth } };
}

/**
 * The error a body refused for `failure` is answered with on our JSON surfaces: 415
 * `unsupported_media_type` for a charset or an encoding, 400 `invalid_json` for what is not
 * UTF-8 or JSON (or could not be read), 400 `invalid_input` for a prototype key or a body nested
 * too deep.
 */
export function jsonBodyError(failure: JsonBodyFailure): AgentPortError {
  switch (failure.kind) {
    case 'unsupported_charset':
      return new UnsupportedMediaTypeError(undefined, failure.charset);
    case 'unsupported_encoding':
      return new UnsupportedContentEncodingError(failure.encoding);
    case 'not_utf8':
      return new InvalidJsonError('Request body is not valid UTF-8');
    case 'prototype_key':
      return new InvalidInputError(PROTOTYPE_KEY, { field: '' });
    case 'too_deep':
      return new InvalidInputError(`body: nests deeper than ${failure.maxDepth} levels`, {
        field: '',
      });
    case 'unreadable':
    case 'not_json':
      return new InvalidJsonError();
  }
}
