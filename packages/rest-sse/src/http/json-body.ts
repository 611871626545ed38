import { InvalidInputError } from '@agentport/core';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type * as z from 'zod';
import { errorResponse } from './error-response.ts';
import {
  InvalidJsonError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
} from './http-errors.ts';
import { requestHeader } from './request-header.ts';

/** The default request body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

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

/** Middleware that answers 413 `payload_too_large` when the body is over `maxBytes`. */
export function limitBody(maxBytes: number = DEFAULT_MAX_BODY_BYTES): MiddlewareHandler {
  const tooLarge = () => errorResponse(new PayloadTooLargeError(maxBytes));
  const counting = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async function limitBodySize(context, next) {
    // A declared length is checked from the header alone: hono's bodyLimit first touches the
    // body stream, which turns @hono/node-server's fast body read off for the handler.
    const over = declaredBodyOverLimit(context, maxBytes);
    if (over === true) return tooLarge();
    if (over === false) {
      await next();
      return;
    }
    return counting(context, next);
  };
}

function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (issue === undefined) return 'Invalid request body';
  const path = issue.path.length > 0 ? issue.path.join('.') : 'body';
  return `${path}: ${issue.message}`;
}

/** Whether a `Content-Type` names JSON (`application/json` or `application/*+json`). */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === 'application/json') return true;
  const mediaType = contentType?.split(';')[0]?.trim() ?? '';
  return JSON_MEDIA_TYPE.test(mediaType);
}

/**
 * Parses a body's text as JSON and then with `schema`: 400 `invalid_json` when it does not parse,
 * 400 `invalid_input` naming the field when it does not match.
 */
export function parseJsonText<TSchema extends z.ZodType>(
  text: string,
  schema: TSchema,
): z.output<TSchema> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new InvalidJsonError();
  }
  const result = schema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new InvalidInputError(describeIssue(issue), { field: issue?.path.join('.') ?? '' });
  }
  return result.data;
}

/**
 * Reads the request body as JSON and parses it with `schema`: 415 when the content type is not
 * JSON, 400 `invalid_json` when it does not parse, 400 `invalid_input` naming the field when it
 * does not match. Pair it with {@link limitBody} for the size limit.
 */
export async function parseJsonBody<TSchema extends z.ZodType>(
  context: Context,
  schema: TSchema,
): Promise<z.output<TSchema>> {
  const contentType = requestHeader(context, 'content-type');
  if (!isJsonContentType(contentType)) throw new UnsupportedMediaTypeError(contentType);
  let text: string;
  try {
    text = await context.req.text();
  } catch {
    // As before the parse: a body that cannot be read is not valid JSON either.
    throw new InvalidJsonError();
  }
  return parseJsonText(text, schema);
}
