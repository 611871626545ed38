import { InvalidInputError } from '../errors/invalid-input-error.ts';
import { type Entry, snapshot } from './memory-entries.ts';
import type { Task } from './task.ts';
import type { TaskListOptions, TaskPage } from './task-store.ts';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 100;

function encodeCursor(sequence: number): string {
  return btoa(`seq:${sequence}`).replace(/=+$/, '');
}

function decodeCursor(cursor: string): number {
  let decoded = '';
  try {
    decoded = atob(cursor);
  } catch {
    // Not base64: reported as an invalid cursor below.
  }
  const match = /^seq:(\d+)$/.exec(decoded);
  if (match?.[1] === undefined) throw new InvalidInputError('Invalid cursor', { field: 'cursor' });
  return Number(match[1]);
}

export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new InvalidInputError(`limit must be an integer from 1 to ${MAX_LIMIT}`, {
      field: 'limit',
    });
  }
  return limit;
}

/**
 * One page of at most `limit` of a store's tasks (see {@link pageLimit}), newest first (the
 * entries are in creation order), from the cursor on (checked here) and filtered as `options` say.
 */
export function listEntries(
  entries: Iterable<Entry>,
  options: TaskListOptions,
  limit: number,
  isExpired: (entry: Entry) => boolean,
): TaskPage {
  const before =
    options.cursor === undefined ? Number.POSITIVE_INFINITY : decodeCursor(options.cursor);
  const all = [...entries];
  const tasks: Task[] = [];
  let last: Entry | undefined;
  for (let index = all.length - 1; index >= 0; index -= 1) {
    const entry = all[index] as Entry;
    if (entry.sequence >= before) continue;
    if (options.status !== undefined && entry.status !== options.status) continue;
    if (options.agentName !== undefined && entry.agentName !== options.agentName) continue;
    if (options.contextId !== undefined && entry.contextId !== options.contextId) continue;
    if (isExpired(entry)) continue;
    if (tasks.length === limit) {
      return { tasks, nextCursor: encodeCursor((last as Entry).sequence) };
    }
    tasks.push(snapshot(entry));
    last = entry;
  }
  return { tasks };
}
