import { AgentPortError } from '@agentport/core';
import { describe, expect, it } from 'vitest';
import { parseSSE } from '../testing/sse.ts';
import { formatComment, formatSSE } from './format-sse.ts';

describe('formatSSE', () => {
  it('writes event, id and data fields that a real parser reads back', () => {
    const frame = formatSSE({ event: 'text-delta', data: '{"delta":"hi"}', id: 7 });
    expect(frame).toBe('event: text-delta\nid: 7\ndata: {"delta":"hi"}\n\n');
    expect(parseSSE(frame).events).toEqual([
      { event: 'text-delta', id: '7', data: '{"delta":"hi"}' },
    ]);
  });

  it.each([
    ['LF', 'one\ntwo\nthree'],
    ['CRLF', 'one\r\ntwo\r\nthree'],
    ['lone CR', 'one\rtwo\rthree'],
    ['mixed', 'one\r\ntwo\rthree'],
  ])('splits data on %s into several data lines', (_, data) => {
    const frame = formatSSE({ data });
    expect(frame).toBe('data: one\ndata: two\ndata: three\n\n');
    expect(parseSSE(frame).events[0]?.data).toBe('one\ntwo\nthree');
  });

  it('keeps empty lines and a trailing line break in data', () => {
    const frame = formatSSE({ data: 'a\n\nb\n' });
    expect(parseSSE(frame).events[0]?.data).toBe('a\n\nb\n');
  });

  it('sends empty data as an event with empty data', () => {
    const parsed = parseSSE(formatSSE({ event: 'ping', data: '' }));
    expect(parsed.events).toEqual([{ event: 'ping', id: undefined, data: '' }]);
  });

  it('carries unicode unchanged, across chunks split inside a character', () => {
    const data = 'héllo wörld 你好 🚀 \u2028 end';
    const bytes = new TextEncoder().encode(formatSSE({ data, id: 'ü-1' }));
    const decoder = new TextDecoder();
    const chunks = Array.from(bytes, (byte) =>
      decoder.decode(Uint8Array.of(byte), { stream: true }),
    );
    const parsed = parseSSE(chunks);
    expect(parsed.events).toEqual([{ event: undefined, id: 'ü-1', data }]);
  });

  it('carries very long lines whole', () => {
    const data = 'x'.repeat(1_000_000);
    const parsed = parseSSE(formatSSE({ data }));
    expect(parsed.events[0]?.data.length).toBe(1_000_000);
  });

  it('writes a retry field the parser reports', () => {
    const frame = formatSSE({ data: 'x', retry: 2500 });
    expect(frame).toContain('retry: 2500\n');
    expect(parseSSE(frame).retries).toEqual([2500]);
  });

  it.each([
    ['event', { event: 'done\ndata: forged', data: 'x' }],
    ['event', { event: 'done\rdata: forged', data: 'x' }],
    ['id', { id: '1\r\nevent: forged', data: 'x' }],
    ['id', { id: 'a\0b', data: 'x' }],
    ['id', { id: Number.NaN, data: 'x' }],
    ['retry', { retry: -1, data: 'x' }],
    ['retry', { retry: 1.5, data: 'x' }],
  ])('rejects an injected or malformed %s field', (field, message) => {
    let thrown: unknown;
    try {
      formatSSE(message);
    } catch (error) {
      thrown = error;
    }
    expect(AgentPortError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'invalid_input', field });
  });

  it('cannot forge a second event through data', () => {
    const parsed = parseSSE(formatSSE({ data: 'x\n\nevent: forged\ndata: y' }));
    expect(parsed.events).toHaveLength(1);
    expect(parsed.events[0]?.event).toBeUndefined();
  });
});

describe('formatComment', () => {
  it('writes comment lines that parsers skip', () => {
    const frame = formatComment('heartbeat');
    expect(frame).toBe(': heartbeat\n\n');
    const parsed = parseSSE(frame + formatSSE({ data: 'after' }));
    expect(parsed.comments).toEqual(['heartbeat']);
    expect(parsed.events.map((event) => event.data)).toEqual(['after']);
  });

  it('keeps every line of a multi-line comment a comment', () => {
    const parsed = parseSSE(formatComment('a\nb\r\nc'));
    expect(parsed.comments).toEqual(['a', 'b', 'c']);
    expect(parsed.events).toEqual([]);
  });
});
