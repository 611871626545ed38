import type { Context } from 'hono';

/** A request body read the way Express's `express.json()` reads it. */
export type JsonBody = { readonly ok: true; readonly value: unknown } | { readonly ok: false };

/** The media type of a Content-Type header, lower-cased, or undefined when there is none. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  return contentType.split(';', 1)[0]?.trim().toLowerCase();
}

/**
 * Reads a JSON body like `express.json()`: no body gives `undefined`, an empty body `{}`, and
 * invalid JSON (or, when `strict`, a top-level value that is not an object or array) a failure.
 */
export async function readJsonBody(c: Context, options: { strict: boolean }): Promise<JsonBody> {
  if (c.req.raw.body === null) return { ok: true, value: undefined };
  const text = await c.req.text();
  if (text.length === 0) return { ok: true, value: {} };
  if (options.strict) {
    const first = text.trimStart()[0];
    if (first !== '{' && first !== '[') return { ok: false };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
