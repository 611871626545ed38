import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** What a real SSE parser made of a stream: its events, comments and retry values. */
export interface ParsedStream {
  events: EventSourceMessage[];
  comments: string[];
  retries: number[];
}

/** Parses SSE text with eventsource-parser, the parser browsers' polyfills use. */
export function parseSSE(text: string | readonly string[]): ParsedStream {
  const parsed: ParsedStream = { events: [], comments: [], retries: [] };
  const parser = createParser({
    onEvent: (event) => parsed.events.push(event),
    onComment: (comment) => parsed.comments.push(comment),
    onRetry: (retry) => parsed.retries.push(retry),
  });
  for (const chunk of typeof text === 'string' ? [text] : text) parser.feed(chunk);
  return parsed;
}

/** Reads a response body to the end and parses it as SSE. */
export async function readSSE(response: Response): Promise<ParsedStream> {
  return parseSSE(await response.text());
}

/** The `data` of each event, JSON-parsed, with its event name. */
export function eventsOf(parsed: ParsedStream): { event: string | undefined; data: unknown }[] {
  return parsed.events.map((event) => ({ event: event.event, data: JSON.parse(event.data) }));
}

/**
 * Reads an SSE response's events with eventsource-parser: all of them, or the first `count`,
 * after which the connection is dropped (a reader going away mid-stream).
 */
export async function readSSEEvents(
  response: Response,
  count = Number.POSITIVE_INFINITY,
): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  await reader.cancel();
  return events.slice(0, count);
}
