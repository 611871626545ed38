import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';

/** Reads a response's SSE events with eventsource-parser, calling `onEvent` as each arrives. */
export async function readEvents(
  response: Response,
  onEvent: (event: EventSourceMessage) => void = () => undefined,
): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const stream = response.body
    ?.pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream());
  if (stream === undefined) throw new Error('the response has no body');
  for await (const event of stream) {
    events.push(event);
    onEvent(event);
  }
  return events;
}
