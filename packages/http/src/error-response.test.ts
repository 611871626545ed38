import {
  AgentFailureError,
  AgentNotFoundError,
  InvalidInputError,
  RemoteUnavailableError,
} from '@agentport/core';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import {
  errorResponse,
  jsonErrorHandler,
  jsonNotFoundHandler,
  methodNotAllowed,
} from './error-response.ts';
import { InvalidJsonError } from './errors/invalid-json-error.ts';
import { MethodNotAllowedError } from './errors/method-not-allowed-error.ts';
import { PayloadTooLargeError } from './errors/payload-too-large-error.ts';
import { RouteNotFoundError } from './errors/route-not-found-error.ts';
import { ShuttingDownError } from './errors/shutting-down-error.ts';
import { UnsupportedMediaTypeError } from './errors/unsupported-media-type-error.ts';

describe('errorResponse', () => {
  it.each([
    [new InvalidInputError('input: is required'), 400, 'invalid_input'],
    [new InvalidJsonError(), 400, 'invalid_json'],
    [new AgentNotFoundError('nope'), 404, 'agent_not_found'],
    [new RouteNotFoundError('/x'), 404, 'not_found'],
    [new PayloadTooLargeError(10), 413, 'payload_too_large'],
    [new UnsupportedMediaTypeError('text/plain'), 415, 'unsupported_media_type'],
    [new AgentFailureError({ agentName: 'echo' }), 500, 'agent_failure'],
    [new ShuttingDownError(), 503, 'shutting_down'],
    [new RemoteUnavailableError('far'), 503, 'remote_unavailable'],
  ])('answers %o with its status and code in the JSON error shape', async (error, status, code) => {
    const response = errorResponse(error);
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ error: { code, message: error.message } });
  });

  it('adds Allow to a 405', async () => {
    const response = errorResponse(new MethodNotAllowedError('PUT', ['GET', 'HEAD']));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(await response.json()).toEqual({
      error: { code: 'method_not_allowed', message: 'Method PUT not allowed; use GET, HEAD' },
    });
  });

  it('adds Retry-After to a remote_unavailable that says when the remote is tried again', () => {
    const soon = errorResponse(new RemoteUnavailableError('far', { retryAfterSeconds: 3 }));
    expect([soon.status, soon.headers.get('retry-after')]).toEqual([503, '3']);
    expect(errorResponse(new RemoteUnavailableError('far')).headers.get('retry-after')).toBeNull();
  });

  it('adds Connection: close to a 413 only when its body was left unread', () => {
    expect(errorResponse(new PayloadTooLargeError(10, true)).headers.get('connection')).toBe(
      'close',
    );
    expect(errorResponse(new PayloadTooLargeError(10)).headers.get('connection')).toBeNull();
  });

  it('says only UTF-8 is taken when JSON is refused for its charset', async () => {
    const response = errorResponse(
      new UnsupportedMediaTypeError('application/json; charset=utf-16', 'utf-16'),
    );
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({
      error: {
        code: 'unsupported_media_type',
        message: 'JSON is taken in UTF-8 only, got charset utf-16',
      },
    });
  });

  it("maps hono's HTTPException by its status", async () => {
    const response = errorResponse(new HTTPException(401, { message: 'Missing token' }));
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: { code: 'unauthorized', message: 'Missing token' },
    });
  });

  it('answers anything else with a 500 that leaks neither message nor stack', async () => {
    const response = errorResponse(new TypeError('password=hunter2'));
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      error: { code: 'internal_error', message: 'Internal error' },
    });
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('at ');
  });
});

describe('the Hono handlers', () => {
  const app = new Hono();
  app.onError(jsonErrorHandler);
  app.notFound(jsonNotFoundHandler);
  app.get('/boom', () => {
    throw new Error('internal detail');
  });
  app.get('/bad', () => {
    throw new InvalidInputError('nope');
  });
  app.get('/only-get', (context) => context.text('ok'));
  app.all('/only-get', methodNotAllowed(['GET']));

  it('jsonErrorHandler answers thrown errors in the JSON shape', async () => {
    const bad = await app.request('/bad');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { code: 'invalid_input', message: 'nope' } });
    const boom = await app.request('/boom');
    expect(boom.status).toBe(500);
    expect(await boom.text()).not.toContain('internal detail');
  });

  it('jsonNotFoundHandler answers 404 not_found naming the path', async () => {
    const response = await app.request('/missing/route');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { code: 'not_found', message: 'No route for /missing/route' },
    });
  });

  it('methodNotAllowed answers 405 with Allow', async () => {
    expect((await app.request('/only-get')).status).toBe(200);
    const response = await app.request('/only-get', { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'method_not_allowed',
    );
  });
});
