import { InvalidInputError } from '@agentport/core';

/** One Server-Sent Event. */
export interface SSEMessage {
  /** The event name; no line breaks. */
  event?: string;
  /** The payload; may span several lines. */
  data: string;
  /** The event id; no line breaks. */
  id?: string | number;
  /** The reconnection time the client should use, in milliseconds. */
  retry?: number;
}

const LINE_BREAK = /\r\n|\r|\n/;

function hasLineBreak(value: string): boolean {
  return value.includes('\n') || value.includes('\r');
}

function assertSingleLine(field: string, value: string): void {
  if (hasLineBreak(value)) {
    throw new InvalidInputError(`SSE ${field} must not contain a line break`, { field });
  }
}

/**
 * Formats an event per the SSE specification: data with several lines (split on CRLF, CR or LF)
 * becomes several `data:` lines; an `event` or `id` with a line break is rejected.
 */
export function formatSSE(message: SSEMessage): string {
  let frame = '';
  if (message.event !== undefined) {
    assertSingleLine('event', message.event);
    frame += `event: ${message.event}\n`;
  }
  if (message.id !== undefined) {
    const { id } = message;
    if (typeof id === 'string') {
      assertSingleLine('id', id);
      if (id.includes('\0')) {
        throw new InvalidInputError('SSE id must not contain NUL', { field: 'id' });
      }
    } else if (!Number.isFinite(id)) {
      throw new InvalidInputError('SSE id must be a finite number or a string', { field: 'id' });
    }
    frame += `id: ${id}\n`;
  }
  if (message.retry !== undefined) {
    if (!Number.isInteger(message.retry) || message.retry < 0) {
      throw new InvalidInputError('SSE retry must be a non-negative integer', { field: 'retry' });
    }
    frame += `retry: ${message.retry}\n`;
  }
  const { data } = message;
  // JSON payloads never hold a raw line break: skip the split for them.
  if (!hasLineBreak(data)) return `${frame}data: ${data}\n\n`;
  for (const line of data.split(LINE_BREAK)) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

/** Formats a comment line (ignored by clients; used for heartbeats). */
export function formatComment(text: string): string {
  return text
    .split(LINE_BREAK)
    .map((line) => `: ${line}\n`)
    .join('')
    .concat('\n');
}
