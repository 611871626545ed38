import { InvalidInputError } from '@agentport/core';
import type { Context } from 'hono';
import { requestHeader } from './request-header.ts';

/** A sequence number as SSE ids carry it: digits only, no sign, no leading zero but `0`. */
const SEQUENCE = /^(?:0|[1-9]\d{0,15})$/;

/**
 * Parses a `Last-Event-ID` value (the header, or the `lastEventId` query parameter of a client
 * that cannot set headers): undefined when there is none, the sequence number it names, or a 400
 * `invalid_input` naming the field when it is not one.
 */
export function parseLastEventId(
  value: string | undefined,
  field = 'Last-Event-ID',
): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (!SEQUENCE.test(trimmed)) {
    throw new InvalidInputError(
      `${field} must be an event id this server sent (a number), not '${value.slice(0, 40)}'`,
      {
        field,
      },
    );
  }
  return Number(trimmed);
}

/**
 * The event id a request resumes after: its `Last-Event-ID` header, else its `lastEventId` query
 * parameter; undefined when it has neither (a stream from the start).
 */
export function lastEventIdOf(context: Context): number | undefined {
  const header = requestHeader(context, 'last-event-id');
  if (header !== undefined) return parseLastEventId(header);
  return parseLastEventId(context.req.query('lastEventId'), 'lastEventId');
}
