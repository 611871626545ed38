import { jsonWeight } from '../json-weight.ts';
import type { Message } from '../message.ts';
import type { TaskError } from './task.ts';
import type { TaskEvent } from './task-event.ts';

/** What an event takes besides its own strings and values: its object and its slot in the log. */
const EVENT_BYTES = 64;
/** A string's header (see `jsonWeight`); its characters count 2 bytes each. */
const STRING_BYTES = 24;

/** The bytes a task's error holds. */
export function errorWeight(error: TaskError | undefined): number {
  return error === undefined ? 0 : 2 * (error.code.length + error.message.length);
}

/** The bytes a message holds, as `jsonWeight` weighs it (0 for none). */
export function messageWeight(message: Message | undefined): number {
  return message === undefined ? 0 : jsonWeight(message);
}

/**
 * Roughly the bytes an event adds to a store that keeps it. What it shares with the task (a
 * status update's message and output, a message event's message: the same objects the task
 * holds) is counted with the task, not again; a text delta is its string; any other event is
 * weighed whole by `jsonWeight` (tool inputs and outputs can be anything).
 */
export function eventWeight(event: TaskEvent): number {
  switch (event.type) {
    case 'text-delta':
      return EVENT_BYTES + STRING_BYTES + 2 * event.delta.length;
    case 'status-update':
      return EVENT_BYTES + errorWeight(event.error);
    case 'message':
      return EVENT_BYTES;
    default:
      return EVENT_BYTES + jsonWeight(event);
  }
}
