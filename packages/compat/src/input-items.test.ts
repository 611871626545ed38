import { describe, expect, it } from 'vitest';
import { inputItemsSchema } from './input-items.ts';

const PNG = 'iVBORw0KGgo=';

function parse(items: unknown) {
  return inputItemsSchema.parse(items);
}

function issueOf(items: unknown): { path: string; message: string } {
  const result = inputItemsSchema.safeParse(items);
  if (result.success) throw new Error('parsed');
  const issue = result.error.issues[0];
  return { path: issue?.path.join('.') ?? '', message: issue?.message ?? '' };
}

describe('inputItemsSchema', () => {
  it('maps string contents to text parts, assistant to agent and the rest to user', () => {
    const messages = parse([
      { role: 'system', content: 'be brief' },
      { role: 'developer', content: [{ type: 'input_text', text: 'use metric' }] },
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'hello' }],
      },
      { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] },
      { role: 'user', content: 'hi' },
    ]);
    expect(messages.map(({ role, parts }) => ({ role, parts }))).toEqual([
      { role: 'user', parts: [{ kind: 'text', text: 'be brief' }] },
      { role: 'user', parts: [{ kind: 'text', text: 'use metric' }] },
      { role: 'agent', parts: [{ kind: 'text', text: 'hello' }] },
      { role: 'agent', parts: [{ kind: 'text', text: 'no' }] },
      { role: 'user', parts: [{ kind: 'text', text: 'hi' }] },
    ]);
    expect(new Set(messages.map((message) => message.messageId)).size).toBe(5);
  });

  it('maps images by URL or data URL to file parts with their media type', () => {
    const [message] = parse([
      {
        role: 'user',
        content: [
          { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
          { type: 'input_image', image_url: 'https://example.com/cat.JPG?size=2' },
          { type: 'input_image', image: 'https://example.com/picture' },
        ],
      },
    ]);
    expect(message?.parts).toEqual([
      { kind: 'file', mediaType: 'image/png', bytes: PNG },
      { kind: 'file', mediaType: 'image/jpeg', url: 'https://example.com/cat.JPG?size=2' },
      { kind: 'file', mediaType: 'image/*', url: 'https://example.com/picture' },
    ]);
  });

  it('maps files as base64, data URLs or URLs, named, with a media type from the name', () => {
    const [message] = parse([
      {
        role: 'user',
        content: [
          { type: 'input_file', file_data: 'aGVsbG8=', filename: 'notes.txt' },
          { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERg==', filename: 'a' },
          { type: 'input_file', file_url: 'https://example.com/report.pdf' },
          { type: 'input_file', file: { url: 'https://example.com/blob' } },
          { type: 'input_file', file_data: 'AAAA' },
        ],
      },
    ]);
    expect(message?.parts).toEqual([
      { kind: 'file', mediaType: 'text/plain', name: 'notes.txt', bytes: 'aGVsbG8=' },
      { kind: 'file', mediaType: 'application/pdf', name: 'a', bytes: 'JVBERg==' },
      { kind: 'file', mediaType: 'application/pdf', url: 'https://example.com/report.pdf' },
      { kind: 'file', mediaType: 'application/octet-stream', url: 'https://example.com/blob' },
      { kind: 'file', mediaType: 'application/octet-stream', bytes: 'AAAA' },
    ]);
  });

  it.each([
    [[], '', 'must have at least one input item'],
    [[{ role: 'user', content: 'a' }, 'b'], '1', 'must be an object'],
    [[{ type: 'function_call', name: 'x' }], '0.type', "type must be 'message'"],
    [[{ role: 'tool', content: 'a' }], '0.role', "must be 'user', 'assistant'"],
    [[{ role: 'user' }], '0.content', 'must be a string or a list of content parts'],
    [[{ role: 'user', content: '' }], '0.content', 'must not be empty'],
    [[{ role: 'user', content: [] }], '0.content', 'must have at least one content part'],
    [
      [{ role: 'user', content: [{ type: 'input_audio' }] }],
      '0.content.0.type',
      'type must be one of',
    ],
    [[{ role: 'user', content: [{ text: 'x' }] }], '0.content.0.type', 'type must be one of'],
    [[{ role: 'user', content: [{ type: 'input_text' }] }], '0.content.0.text', 'must be a string'],
    [
      [{ role: 'user', content: [{ type: 'input_image', image_url: 'not a url' }] }],
      '0.content.0.image_url',
      'must be a URL or a base64 data: URL',
    ],
    [
      [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png,abc' }] }],
      '0.content.0.image_url',
      'must be a base64 data: URL',
    ],
    [
      [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }],
      '0.content.0.file_id',
      'file ids are not supported',
    ],
    [
      [{ role: 'user', content: [{ type: 'input_file', file_data: 'not base64!' }] }],
      '0.content.0.file_data',
      'must be standard base64',
    ],
    [
      [{ role: 'user', content: [{ type: 'input_file', filename: 'a.txt' }] }],
      '0.content.0',
      'exactly one of file_data, file_url or file',
    ],
    [
      [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
      ],
      '1.role',
      'the last input item must be a user message',
    ],
  ])('refuses %j, naming %s', (items, path, message) => {
    const issue = issueOf(items);
    expect(issue.path).toBe(path);
    expect(issue.message).toContain(message);
  });
});
