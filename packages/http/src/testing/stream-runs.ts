import type { EventSourceMessage } from 'eventsource-parser';
import { readSSEEvents } from './sse.ts';

/** The event types a store writes itself, which a run's stream sends none of but its last. */
const STORE_EVENT_TYPES = ['status-update', 'message', 'artifact-update'];

/**
 * The seq of each entry of a task's log that a run's stream sends (REST's, compat's): the agent's
 * own events, then the last one (the terminal update).
 */
export function sentSeqs(log: readonly { seq: number; event: { type: string } }[]): number[] {
  return log
    .filter((entry) => !STORE_EVENT_TYPES.includes(entry.event.type) || entry === log.at(-1))
    .map((entry) => entry.seq);
}

/** Each JSON error answer as `[status, code]`. */
export function errorCodesOf(answers: readonly Response[]): Promise<[number, string][]> {
  return Promise.all(
    answers.map(async (answer): Promise<[number, string]> => {
      const { error } = (await answer.json()) as { error: { code: string } };
      return [answer.status, error.code];
    }),
  );
}

/**
 * What a rejoin route answers, as `[status, code]`, to a `Last-Event-ID` that is not a number
 * (as a header, then as `?lastEventId=-1`), one past the task's last event (999), one its store
 * dropped (1: for a store keeping only the last few events), and to `unknown`, a task it has not.
 */
export async function rejoinRefusals(
  base: string,
  location: string,
  unknown: string,
): Promise<[number, string][]> {
  const rejoin = (path: string, lastEventId?: string) =>
    fetch(`${base}${path}`, {
      headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId },
    });
  return errorCodesOf(
    await Promise.all([
      rejoin(location, 'x'),
      rejoin(`${location}?lastEventId=-1`),
      rejoin(location, '999'),
      rejoin(location, '1'),
      rejoin(unknown),
    ]),
  );
}

/** What {@link rejoinRefusals} gets from a route that refuses as a2a-http's task events do. */
export const REJOIN_REFUSALS: readonly [number, string][] = [
  [400, 'invalid_input'],
  [400, 'invalid_input'],
  [400, 'events_ahead'],
  [410, 'events_expired'],
  [404, 'task_not_found'],
];

/** A run's stream read in two parts: up to a drop, and rejoined after it. */
export interface RejoinedStream {
  /** The events read before the drop. */
  before: EventSourceMessage[];
  /** The status of the rejoin's answer. */
  status: number;
  /** The events of the rejoined stream, to its end. */
  after: EventSourceMessage[];
}

/**
 * Reads the first `count` events of a run's stream, drops it, and rejoins it at its
 * `Content-Location` with `Last-Event-ID` of the last event read, to the rejoined stream's end.
 */
export async function dropAndRejoin(
  base: string,
  response: Response,
  count: number,
): Promise<RejoinedStream> {
  const location = response.headers.get('content-location') ?? '';
  const before = await readSSEEvents(response, count);
  const rejoined = await fetch(`${base}${location}`, {
    headers: { 'last-event-id': before.at(-1)?.id ?? '' },
  });
  return { before, status: rejoined.status, after: await readSSEEvents(rejoined) };
}
