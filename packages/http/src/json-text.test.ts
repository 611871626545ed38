import { describe, expect, it } from 'vitest';
import { type JsonBodyFailure, jsonBodyError, readJsonText } from './json-text.ts';

describe('readJsonText', () => {
  it('reads JSON text or UTF-8 bytes into a value, a byte-order mark dropped', () => {
    expect(readJsonText('{"a":[1,2]}')).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(readJsonText(new TextEncoder().encode('\ufeff"text"'))).toEqual({
      ok: true,
      value: 'text',
    });
  });

  it('says why it refuses, without throwing', () => {
    expect(readJsonText('{bad')).toEqual({ ok: false, failure: { kind: 'not_json' } });
    expect(readJsonText('')).toEqual({ ok: false, failure: { kind: 'not_json' } });
    expect(readJsonText(new Uint8Array([0x22, 0xff, 0x22]))).toEqual({
      ok: false,
      failure: { kind: 'not_utf8' },
    });
    expect(readJsonText('{"__proto__":{"admin":true}}')).toEqual({
      ok: false,
      failure: { kind: 'prototype_key' },
    });
  });

  it('with strict, takes only an object or an array at the top, as express.json() does', () => {
    expect(readJsonText(' \n[1]', { strict: true })).toEqual({ ok: true, value: [1] });
    for (const text of ['"text"', '12', 'null', 'true']) {
      expect(readJsonText(text, { strict: true })).toEqual({
        ok: false,
        failure: { kind: 'not_json' },
      });
    }
  });

  it('with maxDepth, refuses what nests deeper and takes what nests exactly that deep', () => {
    expect(readJsonText('{"a":{"b":[1]}}', { maxDepth: 3 })).toEqual({
      ok: true,
      value: { a: { b: [1] } },
    });
    expect(readJsonText('{"a":{"b":[[1]]}}', { maxDepth: 3 })).toEqual({
      ok: false,
      failure: { kind: 'too_deep', maxDepth: 3 },
    });
  });

  it('with emptyAsObject, reads an empty body as a new {} each time', () => {
    const first = readJsonText('', { emptyAsObject: true });
    const second = readJsonText(new Uint8Array(0), { emptyAsObject: true });
    expect(first).toEqual({ ok: true, value: {} });
    expect(second).toEqual({ ok: true, value: {} });
    expect(first.ok && second.ok && first.value !== second.value).toBe(true);
  });

  it('with allowPrototypeKeys, keeps a __proto__ key as JSON.parse does, as an own key', () => {
    const read = readJsonText('{"__proto__":{"admin":true}}', { allowPrototypeKeys: true });
    expect(read.ok).toBe(true);
    const value = read.ok ? (read.value as Record<string, unknown>) : {};
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect((value as { admin?: unknown }).admin).toBeUndefined();
    expect(readJsonText('{bad', { allowPrototypeKeys: true })).toEqual({
      ok: false,
      failure: { kind: 'not_json' },
    });
  });
});

describe('jsonBodyError', () => {
  it.each<[JsonBodyFailure, string, number, string]>([
    [
      { kind: 'unsupported_charset', charset: 'latin1' },
      'unsupported_media_type',
      415,
      'JSON is taken in UTF-8 only, got charset latin1',
    ],
    [
      { kind: 'unsupported_encoding', encoding: 'gzip' },
      'unsupported_media_type',
      415,
      'Content-Encoding gzip is not supported: send the body uncompressed',
    ],
    [
      { kind: 'unreadable', error: new Error('reset') },
      'invalid_json',
      400,
      'Request body is not valid JSON',
    ],
    [{ kind: 'not_utf8' }, 'invalid_json', 400, 'Request body is not valid UTF-8'],
    [{ kind: 'not_json' }, 'invalid_json', 400, 'Request body is not valid JSON'],
    [
      { kind: 'prototype_key' },
      'invalid_input',
      400,
      'body: objects must not have a __proto__ key or a constructor.prototype',
    ],
    [{ kind: 'too_deep', maxDepth: 64 }, 'invalid_input', 400, 'body: nests deeper than 64 levels'],
  ])("maps %o to our JSON surfaces' error", (failure, code, status, message) => {
    expect(jsonBodyError(failure)).toMatchObject({ code, status, message });
  });
});
