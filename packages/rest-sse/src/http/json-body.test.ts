import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { jsonErrorHandler } from './error-response.ts';
import { DEFAULT_MAX_BODY_BYTES, limitBody, parseJsonBody } from './json-body.ts';

const schema = z.object({ input: z.string().min(1), count: z.number().optional() });

function createApp(maxBytes?: number) {
  const app = new Hono();
  app.onError(jsonErrorHandler);
  app.post('/echo', limitBody(maxBytes), async (context) =>
    context.json(await parseJsonBody(context, schema)),
  );
  return app;
}

const post = (app: Hono, body: BodyInit, headers: Record<string, string> = {}) =>
  app.request('/echo', {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

describe('parseJsonBody', () => {
  it('returns the parsed body', async () => {
    const response = await post(createApp(), JSON.stringify({ input: 'hi', count: 2 }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ input: 'hi', count: 2 });
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/vnd.api+json',
  ])('accepts the JSON media type %s', async (contentType) => {
    const response = await post(createApp(), '{"input":"x"}', { 'content-type': contentType });
    expect(response.status).toBe(200);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['form data', 'application/x-www-form-urlencoded'],
    ['a look-alike', 'application/jsonp'],
  ])('answers 415 for %s', async (_, contentType) => {
    const response = await post(createApp(), '{"input":"x"}', { 'content-type': contentType });
    expect(response.status).toBe(415);
    expect(await errorOf(response)).toMatchObject({ code: 'unsupported_media_type' });
  });

  it('answers 415 without a content type', async () => {
    const app = createApp();
    const response = await app.request('/echo', {
      method: 'POST',
      body: new TextEncoder().encode('{"input":"x"}'),
    });
    expect(response.status).toBe(415);
  });

  it.each(['{"input":', 'not json', ''])('answers 400 invalid_json for %j', async (body) => {
    const response = await post(createApp(), body);
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toEqual({
      code: 'invalid_json',
      message: 'Request body is not valid JSON',
    });
  });

  it('answers 400 invalid_input naming the field that does not match', async () => {
    const response = await post(createApp(), JSON.stringify({ input: 'x', count: 'two' }));
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/^count: /);
  });
});

describe('limitBody', () => {
  it('defaults to 1 MiB', () => {
    expect(DEFAULT_MAX_BODY_BYTES).toBe(1024 * 1024);
  });

  it('answers 413 payload_too_large for a declared length over the limit', async () => {
    const body = JSON.stringify({ input: 'x'.repeat(200) });
    const response = await post(createApp(100), body, { 'content-length': String(body.length) });
    expect(response.status).toBe(413);
    expect(await errorOf(response)).toEqual({
      code: 'payload_too_large',
      message: 'Request body larger than 100 bytes',
    });
  });

  it('counts a streamed body without a declared length', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"input":"'));
        for (let index = 0; index < 10; index += 1) controller.enqueue(chunk);
        controller.enqueue(new TextEncoder().encode('"}'));
        controller.close();
      },
    });
    const app = createApp(300);
    const response = await app.request('/echo', {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  it('lets a body at the limit through', async () => {
    const body = JSON.stringify({ input: 'x'.repeat(100 - 12) });
    expect(body.length).toBe(100);
    const response = await post(createApp(100), body, { 'content-length': '100' });
    expect(response.status).toBe(200);
  });
});
