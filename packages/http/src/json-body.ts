import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type * as z from 'zod';
import { errorResponse } from './error-response.ts';
import { InvalidJsonError } from './errors/invalid-json-error.ts';
import { PayloadTooLargeError } from './errors/payload-too-large-error.ts';
import { UnsupportedMediaTypeError } from './errors/unsupported-media-type-error.ts';
import { invalidInputOf } from './invalid-input-of.ts';
import {
  decodeUtf8,
  type JsonBodyFailure,
  type JsonBodyResult,
  jsonBodyError,
  type ReadJsonOptions,
  readJsonText,
} from './json-text.ts';
import { requestHeader } from './request-header.ts';

/** The default request body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;
const CHARSET_PARAMETER = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/gi;
const UTF8_CHARSET = /^utf-?8$/i;

/**
 * Whether a request's declared body length is over `maxBytes`: from `Content-Length` alone, or
 * undefined when the length is not declared (a chunked body must be counted as it is read).
 */
export function declaredBodyOverLimit(context: Context, maxBytes: number): boolean | undefined {
  const length = requestHeader(context, 'content-length');
  if (length === undefined || requestHeader(context, 'transfer-encoding') !== undefined) {
    return undefined;
  }
  return Number(length) > maxBytes;
}

/**
 * Whether a request has a body: from its headers first, as Node and Express judge it (which
 * keeps @hono/node-server on its fast path, creating no web stream), else from the request itself
 * (other runtimes and in-memory requests may omit `Content-Length`).
 */
function hasBody(context: Context): boolean {
  if (requestHeader(context, 'content-length') !== undefined) return true;
  if (requestHeader(context, 'transfer-encoding') !== undefined) return true;
  const { method } = context.req;
  if (method === 'GET' || method === 'HEAD') return false;
  return context.req.raw.body !== null;
}

/** Options of {@link limitBody}. */
export interface LimitBodyOptions {
  /**
   * The answer to a body over the limit, for a surface with error bodies of its own (default 413
   * `payload_too_large` in the JSON error shape); `limitBody` adds `Connection: close` to it.
   */
  onError?: (context: Context) => Response;
}

/**
 * Middleware that answers 413 `payload_too_large` (or `onError`'s answer) when the body is over
 * `maxBytes`, from a declared `Content-Length` or found while counting a streamed body; the
 * answer says `Connection: close` and the connection ends once it is sent, the rest of the body
 * unread (see {@link PayloadTooLargeError}). A request without a body passes untouched.
 */
export function limitBody(
  maxBytes: number = DEFAULT_MAX_BODY_BYTES,
  options: LimitBodyOptions = {},
): MiddlewareHandler {
  // Counting stops at the limit, before the body's end; a declared length is refused from the
  // header, before any of the body is read.
  const { onError } = options;
  const tooLarge =
    onError === undefined
      ? () => errorResponse(new PayloadTooLargeError(maxBytes, true))
      : (context: Context) => {
          const refused = onError(context);
          refused.headers.set('connection', 'close');
          return refused;
        };
  const counting = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async function limitBodySize(context, next) {
    // A declared length is checked from the header alone: hono's bodyLimit first touches the
    // body stream, which turns @hono/node-server's fast body read off for the handler.
    const over = declaredBodyOverLimit(context, maxBytes);
    if (over === true) return tooLarge(context);
    if (over === false || !hasBody(context)) {
      await next();
      return;
    }
    return counting(context, next);
  };
}

/**
 * The media type of a `Content-Type`, without its parameters and in lower case; undefined when
 * there is none (no header, or an empty one).
 */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

/**
 * The charset a `Content-Type` names other than UTF-8 (`utf-8` or `utf8`, in any case, quoted or
 * not), or undefined when it names none or only UTF-8.
 */
function nonUtf8Charset(contentType: string): string | undefined {
  for (const match of contentType.matchAll(CHARSET_PARAMETER)) {
    const charset = match[1] ?? match[2] ?? '';
    if (!UTF8_CHARSET.test(charset)) return charset;
  }
  return undefined;
}

/**
 * Whether a `Content-Type` names JSON (`application/json` or `application/*+json`) in UTF-8: a
 * `charset` other than UTF-8 is refused, since JSON between systems is UTF-8 (RFC 8259 8.1).
 */
export function isJsonContentType(contentType: string | undefined): boolean {
  // The usual headers, on the hot path, with a plain compare.
  if (contentType === 'application/json' || contentType === 'application/json; charset=utf-8') {
    return true;
  }
  if (contentType === undefined || !JSON_MEDIA_TYPE.test(mediaTypeOf(contentType) ?? '')) {
    return false;
  }
  return nonUtf8Charset(contentType) === undefined;
}

/**
 * Decodes a body as UTF-8 the way `Request.text()` does (a leading byte-order mark dropped), but
 * refuses ill-formed UTF-8 (400 `invalid_json`) where `text()` would put U+FFFD in its place:
 * JSON between systems is UTF-8 (RFC 8259 8.1), and the caller's text would be changed.
 */
export function decodeJsonBody(body: Uint8Array): string {
  const text = decodeUtf8(body);
  if (text === undefined) throw new InvalidJsonError('Request body is not valid UTF-8');
  return text;
}

/**
 * The `Content-Encoding` of a request other than `identity`, which the server does not decode,
 * or undefined when there is none.
 */
function unsupportedContentEncoding(encoding: string | undefined): string | undefined {
  if (encoding === undefined) return undefined;
  const trimmed = encoding.trim();
  return trimmed === '' || trimmed.toLowerCase() === 'identity' ? undefined : trimmed;
}

/**
 * Parses a body as JSON and then with `schema`: 400 `invalid_json` when it does not parse (or,
 * given as bytes, is not UTF-8: see {@link decodeJsonBody}), 400 `invalid_input` naming the field
 * when it does not match, or when an object in it has a `__proto__` key or a `constructor` key
 * holding a `prototype` (which zod would drop without a word, and which merging the object into
 * another would turn into a prototype change; refused as Fastify does, by `secure-json-parse`).
 */
export function parseJsonText<TSchema extends z.ZodType>(
  text: string | Uint8Array,
  schema: TSchema,
): z.output<TSchema> {
  const read = readJsonText(text);
  if (!read.ok) throw jsonBodyError(read.failure);
  const result = schema.safeParse(read.value);
  if (!result.success) throw invalidInputOf(result.error, 'body');
  return result.data;
}

/**
 * Reads the bytes of a request's JSON body: 415 when the content type is not JSON or names a
 * charset other than UTF-8, or the body comes with a `Content-Encoding` (gzip and the like are
 * not decoded), 400 `invalid_json` when it cannot be read. Pair it with {@link limitBody} for the
 * size limit, and give the bytes to {@link parseJsonText}.
 */
export async function readJsonBytes(context: Context): Promise<Uint8Array> {
  const contentType = requestHeader(context, 'content-type');
  if (!isJsonContentType(contentType)) {
    const json = contentType !== undefined && JSON_MEDIA_TYPE.test(mediaTypeOf(contentType) ?? '');
    // JSON refused for its charset says so.
    const charset = json ? nonUtf8Charset(contentType) : undefined;
    throw new UnsupportedMediaTypeError(contentType, charset);
  }
  const bytes = await readBytes(context);
  // As before the parse: a body that cannot be read is not valid JSON either.
  if (!(bytes instanceof Uint8Array)) throw jsonBodyError(bytes);
  return bytes;
}

/** A request's body, refused when it comes with a `Content-Encoding` or cannot be read. */
async function readBytes(context: Context): Promise<Uint8Array | JsonBodyFailure> {
  const encoding = unsupportedContentEncoding(requestHeader(context, 'content-encoding'));
  if (encoding !== undefined) return { kind: 'unsupported_encoding', encoding };
  try {
    return new Uint8Array(await context.req.arrayBuffer());
  } catch (error) {
    return { kind: 'unreadable', error };
  }
}

const NO_BODY: JsonBodyResult = { ok: true, value: undefined };

/**
 * Reads a request's body as JSON into a result rather than throwing, for a surface that answers
 * refusals in its own shape: a request without a body reads as `undefined`; a body declared in a
 * charset other than UTF-8, sent with a `Content-Encoding`, that cannot be read, or that
 * {@link readJsonText} refuses (with `options`) is a failure saying why. It does not look at the
 * media type (see {@link mediaTypeOf}); pair it with {@link limitBody} for the size limit.
 *
 * @example
 * // As express.json() reads a JSON-RPC call.
 * const read = await readJsonBody(context, { strict: true, emptyAsObject: true, allowPrototypeKeys: true });
 * if (!read.ok) return context.json({ error: read.failure.kind }, 400);
 */
export async function readJsonBody(
  context: Context,
  options: ReadJsonOptions = {},
): Promise<JsonBodyResult> {
  if (!hasBody(context)) return NO_BODY;
  const contentType = requestHeader(context, 'content-type');
  const charset = contentType === undefined ? undefined : nonUtf8Charset(contentType);
  if (charset !== undefined)
    return { ok: false, failure: { kind: 'unsupported_charset', charset } };
  const bytes = await readBytes(context);
  if (!(bytes instanceof Uint8Array)) return { ok: false, failure: bytes };
  return readJsonText(bytes, options);
}

/**
 * Reads the request body as JSON and parses it with `schema` ({@link readJsonBytes}, then
 * {@link parseJsonText}): 415 for a body that is not JSON in UTF-8 or is encoded, 400
 * `invalid_json` when it is not UTF-8 or does not parse, 400 `invalid_input` naming the field
 * when it does not match. Pair it with {@link limitBody} for the size limit.
 */
export async function parseJsonBody<TSchema extends z.ZodType>(
  context: Context,
  schema: TSchema,
): Promise<z.output<TSchema>> {
  return parseJsonText(await readJsonBytes(context), schema);
}
