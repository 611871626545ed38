import { isUtf8 } from 'node:buffer';
import { nestsWithin } from '@agentport/core/internal';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requestHeader } from './request-header.ts';

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

const NOT_JSON: JsonBody = { ok: false, tooDeep: false, reason: 'Invalid JSON payload.' };

/** A `charset` parameter's value, unquoted. */
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/**
 * Why a body declared in a charset other than UTF-8 is refused, or undefined: JSON between systems
 * is UTF-8 (RFC 8259 8.1), and decoding it as UTF-8 anyway would change what was sent.
 */
function unsupportedCharset(contentType: string | undefined): string | undefined {
  const charset = contentType === undefined ? undefined : CHARSET.exec(contentType)?.[1];
  if (charset === undefined || /^utf-?8$/i.test(charset)) return undefined;
  return `Unsupported charset "${charset}": JSON is taken in UTF-8 only.`;
}

/**
 * Why a body sent with a `Content-Encoding` (gzip and the like) is refused, or undefined: bodies
 * are taken uncompressed (`express.json()` inflates gzip, deflate and br; this server does not).
 */
function unsupportedEncoding(encoding: string | undefined): string | undefined {
  const trimmed = encoding?.trim() ?? '';
  if (trimmed === '' || trimmed.toLowerCase() === 'identity') return undefined;
  return `Unsupported Content-Encoding "${trimmed}": send the body uncompressed.`;
}

const NOT_UTF8: JsonBody = { ok: false, tooDeep: false, reason: 'The body is not valid UTF-8.' };

/** The UTF-8 byte-order mark, as decoded. */
const BYTE_ORDER_MARK = 0xfeff;

/** The media type of a Content-Type header, lower-cased, or undefined when there is none. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  return contentType.split(';', 1)[0]?.trim().toLowerCase();
}

/**
 * Whether a request has a body: from its headers first, as Node and Express judge it (which keeps
 * @hono/node-server on its fast path, creating no web stream), else from the request itself
 * (other runtimes and in-memory requests may omit `Content-Length`).
 */
function hasBody(c: Context): boolean {
  if (requestHeader(c, 'content-length') !== undefined) return true;
  if (requestHeader(c, 'transfer-encoding') !== undefined) return true;
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return false;
  return c.req.raw.body !== null;
}

/**
 * Reads a JSON body like `express.json()`: no body gives `undefined`, an empty body `{}`, and
 * invalid JSON (or, when `strict`, a top-level value that is not an object or array) a failure;
 * so do JSON nested deeper than {@link MAX_BODY_DEPTH} (`tooDeep`), a body declared in a charset
 * other than UTF-8 (as `express.json()` refuses one), one that is not UTF-8 (where `express.json()`
 * would put U+FFFD in its place) and one sent with a `Content-Encoding`; `reason` says which.
 */
export async function readJsonBody(c: Context, options: { strict: boolean }): Promise<JsonBody> {
  if (!hasBody(c)) return { ok: true, value: undefined };
  const charset = unsupportedCharset(requestHeader(c, 'content-type'));
  if (charset !== undefined) return { ok: false, tooDeep: false, reason: charset };
  const encoding = unsupportedEncoding(requestHeader(c, 'content-encoding'));
  if (encoding !== undefined) return { ok: false, tooDeep: false, reason: encoding };
  const bytes = Buffer.from(await c.req.arrayBuffer());
  if (!isUtf8(bytes)) return NOT_UTF8;
  const decoded = bytes.toString();
  const text = decoded.charCodeAt(0) === BYTE_ORDER_MARK ? decoded.slice(1) : decoded;
  if (text.length === 0) return { ok: true, value: {} };
  if (options.strict) {
    const first = text.trimStart()[0];
    if (first !== '{' && first !== '[') return NOT_JSON;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
  return nestsWithin(value, MAX_BODY_DEPTH)
    ? { ok: true, value }
    : { ok: false, tooDeep: true, reason: TOO_DEEP };
}

/**
 * Refuses bodies over `maxSize` bytes: from `Content-Length` when given (cheap), else by
 * counting the streamed bytes with Hono's `bodyLimit`. Either way the body is refused unread
 * (counting stops at the limit), so the answer says `Connection: close`: the rest of the body
 * would be read as a next request, and the server ends the connection once the answer is sent.
 */
export function limitBody(maxSize: number, onError: (c: Context) => Response): MiddlewareHandler {
  const refuse = (c: Context) => {
    const refused = onError(c);
    refused.headers.set('connection', 'close');
    return refused;
  };
  const streaming = bodyLimit({ maxSize, onError: refuse });
  return async (c, next) => {
    const contentLength = requestHeader(c, 'content-length');
    if (contentLength !== undefined) {
      if (Number(contentLength) > maxSize) return refuse(c);
      return next();
    }
    return hasBody(c) ? streaming(c, next) : next();
  };
}
