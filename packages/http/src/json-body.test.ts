import { connect } from 'node:net';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { jsonErrorHandler } from './error-response.ts';
import {
  DEFAULT_MAX_BODY_BYTES,
  isJsonContentType,
  limitBody,
  mediaTypeOf,
  parseJsonBody,
  parseJsonText,
  readJsonBody,
} from './json-body.ts';
import { serve, type TestServer } from './testing/serve.ts';

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
    'application/json; charset=UTF-8',
    'application/json;charset="utf-8"',
    'application/json; charset=utf8',
    'application/vnd.api+json; Charset="UTF8"',
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

  it.each([
    ['application/json; charset=iso-8859-1', 'iso-8859-1'],
    ['application/json; charset="utf-16"', 'utf-16'],
    ['application/vnd.api+json; CHARSET=windows-1252', 'windows-1252'],
    ['application/json; charset=utf-8; charset=latin1', 'latin1'],
  ])('answers 415 saying only UTF-8 is taken for %s', async (contentType, charset) => {
    const response = await post(createApp(), '{"input":"x"}', { 'content-type': contentType });
    expect(response.status).toBe(415);
    expect(await errorOf(response)).toEqual({
      code: 'unsupported_media_type',
      message: `JSON is taken in UTF-8 only, got charset ${charset}`,
    });
  });

  it('keeps the plain 415 message for a type that is not JSON, whatever its charset', async () => {
    const contentType = 'text/plain; charset=latin1';
    const response = await post(createApp(), '{"input":"x"}', { 'content-type': contentType });
    expect(await errorOf(response)).toEqual({
      code: 'unsupported_media_type',
      message: `Content-Type must be application/json, got ${contentType}`,
    });
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

describe('isJsonContentType', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['application/problem+json; charset="UTF-8"', true],
    ['application/json; charset=us-ascii', false],
    ['application/json; charset=iso-8859-1', false],
    ['text/plain; charset=utf-8', false],
    [undefined, false],
  ])('judges %s as %s', (contentType, expected) => {
    expect(isJsonContentType(contentType)).toBe(expected);
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
    // Counting stopped at the limit: the rest of the body was never read.
    expect(response.headers.get('connection')).toBe('close');
  });

  it('lets a body at the limit through', async () => {
    const body = JSON.stringify({ input: 'x'.repeat(100 - 12) });
    expect(body.length).toBe(100);
    const response = await post(createApp(100), body, { 'content-length': '100' });
    expect(response.status).toBe(200);
  });
});

describe('limitBody with onError', () => {
  const app = new Hono();
  app.post(
    '/rpc',
    limitBody(100, { onError: (context) => context.json({ refused: context.req.path }, 413) }),
    (context) => context.text('taken'),
  );
  app.get(
    '/rpc',
    limitBody(100, { onError: () => new Response('never', { status: 413 }) }),
    (context) => context.text('no body'),
  );

  it('answers a body over the limit with its answer, which says Connection: close', async () => {
    const body = 'x'.repeat(101);
    const declared: Record<string, string>[] = [
      { 'content-length': '101' },
      { 'transfer-encoding': 'chunked' },
    ];
    for (const headers of declared) {
      const response = await app.request('/rpc', {
        method: 'POST',
        body: headers['transfer-encoding'] === undefined ? body : new Blob([body]).stream(),
        headers,
        duplex: 'half',
      } as RequestInit);
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({ refused: '/rpc' });
      expect(response.headers.get('connection')).toBe('close');
    }
  });

  it('lets a body within the limit and a request without a body through', async () => {
    const taken = await app.request('/rpc', { method: 'POST', body: 'x'.repeat(100) });
    expect(await taken.text()).toBe('taken');
    expect(await (await app.request('/rpc')).text()).toBe('no body');
  });
});

describe('mediaTypeOf', () => {
  it('gives the media type without parameters, in lower case; undefined without one', () => {
    expect(mediaTypeOf(' Application/JSON ; charset=utf-8')).toBe('application/json');
    expect(mediaTypeOf('text/plain')).toBe('text/plain');
    expect(mediaTypeOf('')).toBeUndefined();
    expect(mediaTypeOf(undefined)).toBeUndefined();
  });
});

describe('readJsonBody', () => {
  const app = new Hono();
  app.all('/read', async (context) =>
    context.json(await readJsonBody(context, { strict: true, emptyAsObject: true })),
  );
  const read = async (init: RequestInit) =>
    (await (await app.request('/read', init)).json()) as unknown;

  it('reads a body as JSON, whatever its media type, and a request without one as undefined', async () => {
    expect(await read({ method: 'POST', body: '{"a":1}' })).toEqual({ ok: true, value: { a: 1 } });
    expect(await read({ method: 'POST', body: '' })).toEqual({ ok: true, value: {} });
    // JSON cannot hold undefined: the answer drops the key.
    expect(await read({ method: 'GET' })).toEqual({ ok: true });
    expect(await read({ method: 'POST' })).toEqual({ ok: true });
  });

  it('says why it refuses a body, in the order express.json() checks', async () => {
    expect(
      await read({
        method: 'POST',
        body: '[]',
        headers: { 'content-type': 'application/json; charset=latin1', 'content-encoding': 'gzip' },
      }),
    ).toEqual({ ok: false, failure: { kind: 'unsupported_charset', charset: 'latin1' } });
    expect(
      await read({ method: 'POST', body: '[]', headers: { 'content-encoding': ' GZIP ' } }),
    ).toEqual({ ok: false, failure: { kind: 'unsupported_encoding', encoding: 'GZIP' } });
    expect(await read({ method: 'POST', body: new Uint8Array([0x5b, 0xff, 0x5d]) })).toEqual({
      ok: false,
      failure: { kind: 'not_utf8' },
    });
    expect(await read({ method: 'POST', body: '"text"' })).toEqual({
      ok: false,
      failure: { kind: 'not_json' },
    });
  });

  it('reports a body that cannot be read with what reading threw', async () => {
    const failing = new Hono().post('/', async (context) => {
      const result = await readJsonBody(context);
      const error =
        !result.ok && result.failure.kind === 'unreadable' ? result.failure.error : undefined;
      return context.text(error instanceof Error ? error.message : 'read');
    });
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('connection reset'));
      },
    });
    const response = await failing.request('/', {
      method: 'POST',
      body,
      headers: { 'transfer-encoding': 'chunked' },
      duplex: 'half',
    } as RequestInit);
    expect(await response.text()).toBe('connection reset');
  });
});

describe('limitBody over a real socket', () => {
  const servers: TestServer[] = [];

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  /**
   * Sends `raw` on a fresh connection; resolves with the answer's head once the whole answer is
   * in, and `ended` resolves once the server ends the connection.
   */
  async function exchange(raw: string): Promise<{ head: string; ended: Promise<void> }> {
    const running = await serve(createApp(100));
    servers.push(running);
    const url = new URL(running.url);
    const socket = connect(Number(url.port), url.hostname);
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    socket.write(raw.replace('{host}', url.host));
    let text = '';
    const head = await new Promise<string>((resolve, reject) => {
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
        const end = text.indexOf('\r\n\r\n');
        if (end === -1) return;
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(text)?.[1]);
        if (text.length >= end + 4 + length) resolve(text.slice(0, end).toLowerCase());
      });
      socket.once('close', () => reject(new Error(`connection ended, got ${text}`)));
    });
    return { head, ended };
  }

  it('answers a chunked body over the limit with Connection: close, then ends the connection', async () => {
    const chunk = `{"input":"${'x'.repeat(200)}"}`;
    const { head, ended } = await exchange(
      'POST /echo HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\n' +
        `transfer-encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
    );
    expect(head).toMatch(/^http\/1\.1 413 /);
    expect(head).toContain('\r\nconnection: close');
    await ended;
  });

  it('answers a declared length over the limit with Connection: close, then ends the connection', async () => {
    const body = `{"input":"${'x'.repeat(200)}"}`;
    const { head, ended } = await exchange(
      'POST /echo HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\n' +
        `content-length: ${body.length}\r\n\r\n${body}`,
    );
    expect(head).toMatch(/^http\/1\.1 413 /);
    expect(head).toContain('\r\nconnection: close');
    await ended;
  });
});

describe('parseJsonText', () => {
  const loose = z.object({ input: z.string(), metadata: z.record(z.string(), z.unknown()) });

  it.each([
    '{"input":"x","metadata":{"__proto__":{"admin":true}}}',
    '{"input":"x","metadata":{"\\u005f\\u005fproto__":{"admin":true}}}',
    '{"input":"x","metadata":{"a":[{"constructor":{"prototype":{"admin":true}}}]}}',
  ])(
    'refuses a prototype-changing key with 400 invalid_input rather than dropping it: %s',
    (text) => {
      expect(() => parseJsonText(text, loose)).toThrow(
        expect.objectContaining({
          code: 'invalid_input',
          status: 400,
          message: 'body: objects must not have a __proto__ key or a constructor.prototype',
        }),
      );
    },
  );

  it('takes a plain constructor key, and still calls bad JSON invalid_json', () => {
    expect(parseJsonText('{"input":"x","metadata":{"constructor":"ok"}}', loose)).toEqual({
      input: 'x',
      metadata: { constructor: 'ok' },
    });
    expect(() => parseJsonText('{"input":"x","__proto__":', loose)).toThrow(
      expect.objectContaining({ code: 'invalid_json' }),
    );
  });

  it('refuses bytes that are not UTF-8, and drops a byte-order mark', () => {
    expect(() => parseJsonText(new Uint8Array([0x7b, 0xff, 0x7d]), loose)).toThrow(
      expect.objectContaining({ code: 'invalid_json', message: 'Request body is not valid UTF-8' }),
    );
    const marked = Buffer.from('\ufeff{"input":"x","metadata":{}}');
    expect(parseJsonText(marked, loose)).toEqual({ input: 'x', metadata: {} });
  });
});
