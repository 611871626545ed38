import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { parseJsonText } from './json-body.ts';
import { agentInputOf, inputSchema } from './message-input.ts';

const body = z.object({ input: inputSchema });
const parse = (value: unknown) => parseJsonText(JSON.stringify(value), body);

describe('inputSchema', () => {
  it('takes a string or a list of text, data and file parts', () => {
    expect(parse({ input: 'hi' }).input).toBe('hi');
    const parts = [
      { kind: 'text', text: 'hi' },
      { kind: 'data', data: { a: 1 } },
      { kind: 'file', mediaType: 'image/png', name: 'a.png', bytes: 'aGk=' },
      { kind: 'file', mediaType: 'text/plain', url: 'https://example.com/a.txt' },
    ];
    expect(parse({ input: parts }).input).toEqual(parts);
  });

  it.each([
    [[{ text: 'no kind' }], 'input.0.kind'],
    [[{ kind: 'video' }], 'input.0.kind'],
    [[{ kind: 'file', mediaType: 'image/png' }], 'input.0'],
    [[{ kind: 'file', mediaType: 'image/png', bytes: 'not base64!' }], 'input.0.bytes'],
    [[{ kind: 'data', data: [1] }], 'input.0.data'],
    [[], 'input'],
    ['', 'input'],
  ])('refuses %j with the field %s named', (input, field) => {
    expect(() => parse({ input })).toThrow(
      expect.objectContaining({ code: 'invalid_input', field }),
    );
  });

  it('takes a file part without a media type as bytes (application/octet-stream)', () => {
    const input = parse({ input: [{ kind: 'file', bytes: 'aGk=' }] }).input;
    expect(input).toEqual([{ kind: 'file', bytes: 'aGk=', mediaType: 'application/octet-stream' }]);
  });

  it('makes a list of parts a user message, and keeps a string', () => {
    expect(agentInputOf('hi')).toBe('hi');
    expect(agentInputOf([{ kind: 'text', text: 'hi' }])).toMatchObject({
      role: 'user',
      parts: [{ kind: 'text', text: 'hi' }],
      messageId: expect.any(String),
    });
  });
});
