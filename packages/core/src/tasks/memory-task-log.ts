import { EventsAheadError } from '../errors/events-ahead-error.ts';
import { EventsExpiredError } from '../errors/events-expired-error.ts';
import { InvalidInputError } from '../errors/invalid-input-error.ts';
import { eventWeight } from './event-weight.ts';
import type { TaskEvent, TaskLogEntry } from './task-event.ts';
import type { TaskEventsOptions } from './task-store.ts';

/**
 * An event as the in-memory store keeps it in a log: a `text-delta` as its delta string alone
 * (most of a chatty log; the event object the agent made is not kept), any other as it is.
 */
export type KeptEvent = TaskEvent | string;

/**
 * A task's log as the in-memory store keeps it, in the task's own entry: its events, oldest
 * first, without sequence numbers (the last kept has the task's `seq`, each one before it one
 * less), so that appending an event costs an array slot and no object of its own. `head` is the
 * index of the oldest event still kept: the per-task cap drops events by moving it, and the array
 * is cut down once most of it is dropped.
 */
export interface TaskLog {
  /** The sequence number of the last event. */
  seq: number;
  events: KeptEvent[];
  head: number;
}

/** How many dropped slots a log keeps at its start before it is cut down (amortised O(1)). */
const COMPACT_AFTER = 1024;

/** The event a kept one stands for. */
function eventOf(kept: KeptEvent): TaskEvent {
  return typeof kept === 'string' ? { type: 'text-delta', delta: kept } : kept;
}

/** What the log keeps of an event. */
export function keptOf(event: TaskEvent): KeptEvent {
  return event.type === 'text-delta' ? event.delta : event;
}

/** The bytes a kept event holds (see `eventWeight`; a delta kept as a string is counted alike). */
export function keptWeight(kept: KeptEvent): number {
  return eventWeight(typeof kept === 'string' ? { type: 'text-delta', delta: kept } : kept);
}

/** How many events a log keeps. */
export function keptCount(log: TaskLog): number {
  return log.events.length - log.head;
}

/**
 * Appends events to a log, dropping its oldest past `maxEvents`; the bytes it grew by (negative
 * when it dropped more than it added).
 */
export function pushEvents(log: TaskLog, events: readonly TaskEvent[], maxEvents: number): number {
  let bytes = 0;
  for (let index = 0; index < events.length; index += 1) {
    const event = events[index] as TaskEvent;
    log.events.push(keptOf(event));
    bytes += eventWeight(event);
  }
  log.seq += events.length;
  let over = keptCount(log) - maxEvents;
  while (over > 0) {
    bytes -= keptWeight(log.events[log.head] as KeptEvent);
    log.events[log.head] = '';
    log.head += 1;
    over -= 1;
  }
  if (log.head > COMPACT_AFTER && log.head * 2 > log.events.length) trimLog(log);
  return bytes;
}

/** Cuts a log's array down to the events it keeps (an array grown event by event has spare room). */
export function trimLog(log: TaskLog): void {
  log.events = log.events.slice(log.head);
  log.head = 0;
}

/** Drops every event of a log (retention, for a finished task); the bytes it freed. */
export function dropEvents(log: TaskLog): number {
  let freed = 0;
  for (let index = log.head; index < log.events.length; index += 1) {
    freed += keptWeight(log.events[index] as KeptEvent);
  }
  log.events = [];
  log.head = 0;
  return freed;
}

function checkedCount(value: number | undefined, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InvalidInputError(`${field} must be an integer of 0 or more`, { field });
  }
  return value;
}

/**
 * A task's events after `options.after` (see `TaskStore.events`): EventsAheadError past its last,
 * EventsExpiredError when some asked for are no longer kept.
 */
export function readEvents(
  taskId: string,
  log: TaskLog,
  options: TaskEventsOptions,
): TaskLogEntry[] {
  const after = checkedCount(options.after, 'after', 0);
  const limit = checkedCount(options.limit, 'limit', Number.POSITIVE_INFINITY);
  if (after > log.seq) throw new EventsAheadError(taskId, after, log.seq);
  const earliestAfter = log.seq - keptCount(log);
  if (after < earliestAfter) throw new EventsExpiredError(taskId, after, earliestAfter);
  const entries: TaskLogEntry[] = [];
  const end = Math.min(log.seq, after + limit);
  // The event of sequence number `seq` sits `log.seq - seq` slots before the end.
  const offset = log.events.length - log.seq;
  for (let seq = after + 1; seq <= end; seq += 1) {
    entries.push({ seq, event: eventOf(log.events[offset + seq - 1] as KeptEvent) });
  }
  return entries;
}
