import { type AgentPortError, CancellationError, InvalidInputError } from '@agentport/core';
import { linkSignals } from '@agentport/core/internal';
import type * as z from 'zod';
import { AnswerTooLargeError } from '../errors/answer-too-large-error.ts';
import { MalformedResponseError } from '../errors/malformed-response-error.ts';
import { RemoteHttpError } from '../errors/remote-http-error.ts';
import { RemoteTaskNotFoundError } from '../errors/remote-task-not-found-error.ts';
import { RemoteTimeoutError } from '../errors/remote-timeout-error.ts';
import { RemoteUnreachableError } from '../errors/remote-unreachable-error.ts';
import { AGENT_CARD_PATH } from '../wire/agent-card.ts';
import { describeIssues, errorBodySchema } from '../wire/task-schemas.ts';
import type { RequestFunction, TransportResponse } from './node-http-request.ts';

/** How a client reaches its remote: base URL, request function, headers and timeout. */
export interface HttpTransport {
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** `node:http` by default, or the caller's fetch. */
  readonly request: RequestFunction;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

/** One request of a client operation. */
export interface HttpCall {
  /** The operation named in errors, such as `getTask`. */
  operation: string;
  method: 'GET' | 'POST';
  /** Relative to the base URL, starting with `/`. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  signal?: AbortSignal | undefined;
  /** Overrides the transport's timeout for this request. */
  timeoutMs?: number;
  /** The task the request is about, for a `RemoteTaskNotFoundError`. */
  taskId?: string;
  accept?: string;
}

/**
 * An answered request; `fail` maps a later read error, `clear` stops its timeout, `release` also
 * stops following the caller's signal (once the response is read or abandoned).
 */
export interface HttpExchange {
  response: TransportResponse;
  fail(error: unknown): AgentPortError;
  clear(): void;
  release(): void;
}

/**
 * Normalizes a client base URL: an absolute http(s) URL without credentials; a trailing slash or
 * the card path (`/.well-known/agent.json`) is removed, so a card URL works as a base.
 */
export function normalizeBaseUrl(baseUrl: string | URL): string {
  const text = String(baseUrl);
  if (!URL.canParse(text)) {
    throw new InvalidInputError(`Invalid base URL '${text}'`, { field: 'baseUrl' });
  }
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidInputError('The base URL must use http or https', { field: 'baseUrl' });
  }
  if (url.username !== '' || url.password !== '') {
    throw new InvalidInputError(
      'The base URL must not contain credentials; pass an Authorization header instead',
      { field: 'baseUrl' },
    );
  }
  let path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith(AGENT_CARD_PATH)) path = path.slice(0, -AGENT_CARD_PATH.length);
  return `${url.origin}${path}`;
}

function urlOf(transport: HttpTransport, call: HttpCall): URL {
  const url = new URL(`${transport.baseUrl}${call.path}`);
  for (const [name, value] of Object.entries(call.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url;
}

function encodeBody(call: HttpCall): string | undefined {
  if (call.body === undefined) return undefined;
  try {
    return JSON.stringify(call.body);
  } catch (error) {
    throw new InvalidInputError(`${call.operation}: the request is not JSON-serializable`, {
      cause: error,
    });
  }
}

/** Sends one request; network failures, timeouts and aborts become typed errors. */
export async function send(transport: HttpTransport, call: HttpCall): Promise<HttpExchange> {
  const url = urlOf(transport, call);
  const shownUrl = `${url.origin}${url.pathname}`;
  const { operation } = call;
  const body = encodeBody(call);
  const timeoutMs = call.timeoutMs ?? transport.timeoutMs;
  if (call.signal?.aborted) {
    throw new CancellationError(`${operation} was canceled`, { cause: call.signal.reason });
  }
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const linked = call.signal === undefined ? undefined : linkSignals([call.signal, timeout.signal]);
  const signal = linked?.signal ?? timeout.signal;
  const clear = () => clearTimeout(timer);
  const release = () => {
    clear();
    linked?.dispose();
  };
  const fail = (error: unknown): AgentPortError => {
    release();
    if (call.signal?.aborted) {
      return new CancellationError(`${operation} was canceled`, { cause: error });
    }
    if (timeout.signal.aborted) return new RemoteTimeoutError(operation, shownUrl, timeoutMs);
    if (error instanceof AnswerTooLargeError) {
      return new MalformedResponseError(operation, error.message, { cause: error });
    }
    return new RemoteUnreachableError(operation, shownUrl, error);
  };
  const headers: Record<string, string> = {
    accept: call.accept ?? 'application/json',
    ...transport.headers,
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    const response = await transport.request(url, { method: call.method, headers, body, signal });
    return { response, fail, clear, release };
  } catch (error) {
    throw fail(error);
  }
}

/** Parses a JSON text with `schema`; anything else is a {@link MalformedResponseError}. */
export function parseJsonText<TSchema extends z.ZodType>(
  operation: string,
  text: string,
  schema: TSchema,
): z.output<TSchema> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new MalformedResponseError(operation, 'a body that is not JSON', { cause: error });
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new MalformedResponseError(
      operation,
      `an unexpected JSON shape (${describeIssues(result.error)})`,
    );
  }
  return result.data;
}

/** The typed error for a non-2xx answer, from the remote's JSON error body when it sent one. */
export async function errorOf(call: HttpCall, exchange: HttpExchange): Promise<AgentPortError> {
  const { response } = exchange;
  let text = '';
  try {
    text = await response.text();
  } catch (error) {
    return exchange.fail(error);
  }
  let remote: { code: string; message: string } | undefined;
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) remote = parsed.data.error;
  } catch {
    // Not our error body: the status alone is reported.
  }
  if (response.status === 404 && remote?.code === 'task_not_found' && call.taskId !== undefined) {
    return new RemoteTaskNotFoundError(call.operation, call.taskId);
  }
  return new RemoteHttpError({
    operation: call.operation,
    httpStatus: response.status,
    ...(remote === undefined ? {} : { remoteCode: remote.code, remoteMessage: remote.message }),
  });
}

/** Sends one request and parses its 2xx JSON answer with `schema`. */
export async function callJson<TSchema extends z.ZodType>(
  transport: HttpTransport,
  call: HttpCall,
  schema: TSchema,
): Promise<z.output<TSchema>> {
  const exchange = await send(transport, call);
  try {
    if (!exchange.response.ok) throw await errorOf(call, exchange);
    let text: string;
    try {
      text = await exchange.response.text();
    } catch (error) {
      throw exchange.fail(error);
    }
    return parseJsonText(call.operation, text, schema);
  } finally {
    exchange.release();
  }
}
