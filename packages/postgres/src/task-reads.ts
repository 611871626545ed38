import {
  EventsAheadError,
  EventsExpiredError,
  type Task,
  type TaskEvent,
  type TaskEventsOptions,
  type TaskListOptions,
  TaskNotFoundError,
  type TaskPage,
} from '@agentport/core';
import { decodeCursor, encodeCursor, pageLimit } from './task-cursor.ts';
import { type TaskRow, taskOf } from './task-rows.ts';
import { countOption, type StoreState } from './task-store-state.ts';
import { unavailableOr } from './unavailable.ts';

/** `get`: the task, or undefined when there is none or it expired. */
export async function getTask(state: StoreState, id: string): Promise<Task | undefined> {
  const { rows } = await unavailableOr(() =>
    state.pool.query<TaskRow>({ ...state.sql.get, values: [id, new Date(state.now())] }),
  );
  const row = rows[0];
  return row === undefined ? undefined : taskOf(row);
}

/**
 * A task another process changed, with its events after `after` up to its last one (its newest
 * 100 at most): the events of a relayed change, always the last ones before its `seq`.
 */
export async function getRelayed(
  state: StoreState,
  id: string,
  after: number,
): Promise<{ task: Task; events: readonly TaskEvent[] } | undefined> {
  const { rows } = await unavailableOr(() =>
    state.pool.query<TaskRow & { recent: TaskEvent[] | null }>({
      ...state.sql.relayed,
      values: [id, new Date(state.now()), Math.min(after, 2 ** 31 - 1)],
    }),
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return { task: taskOf(row), events: Object.freeze(row.recent ?? []) };
}

/** `events`: the log after `after`, with its two errors, from one snapshot. */
export async function readEvents(state: StoreState, id: string, options: TaskEventsOptions) {
  const after = countOption(options.after, 'after', 0);
  const limit = countOption(options.limit, 'limit', Number.MAX_SAFE_INTEGER);
  const { rows } = await unavailableOr(() =>
    state.pool.query<{
      last_seq: number;
      earliest_after: number;
      seq: number | null;
      event: TaskEvent;
    }>({
      ...state.sql.events,
      values: [
        id,
        new Date(state.now()),
        Math.min(after, 2 ** 31 - 1),
        Math.min(after + limit, 2 ** 62),
      ],
    }),
  );
  const first = rows[0];
  if (first === undefined) throw new TaskNotFoundError(id);
  if (after > first.last_seq) throw new EventsAheadError(id, after, first.last_seq);
  if (after < first.earliest_after) throw new EventsExpiredError(id, after, first.earliest_after);
  return rows.flatMap((row) => (row.seq === null ? [] : [{ seq: row.seq, event: row.event }]));
}

/** `list`: a page of tasks, newest first, from the cursor on. */
export async function listTasks(state: StoreState, options: TaskListOptions): Promise<TaskPage> {
  const limit = pageLimit(options.limit);
  const before =
    options.cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(options.cursor);
  const { rows } = await unavailableOr(() =>
    state.pool.query<TaskRow>(state.sql.list, [
      before,
      options.status ?? null,
      options.agentName ?? null,
      options.contextId ?? null,
      new Date(state.now()),
      limit + 1,
    ]),
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const tasks = page.map(taskOf);
  return rows.length > limit && last !== undefined
    ? { tasks, nextCursor: encodeCursor(Number(last.sequence)) }
    : { tasks };
}
