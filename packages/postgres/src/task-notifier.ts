import { setTimeout as delay } from 'node:timers/promises';
import type { Pool, QueryResult } from 'pg';
import type { StoreState } from './task-store-state.ts';
import { unavailableOr } from './unavailable.ts';

/** Most payloads one statement sends. */
const BATCH = 500;
/** Most payloads kept while the database is away (the oldest go first). */
const MAX_PENDING = 10_000;
/** The wait before a batch that failed is sent again. */
const RETRY_MS = 100;

/** What sends the notifications of the steps a store committed. */
export interface TaskNotifier {
  /**
   * A write of a step begins: whether it notifies in its own transaction (no other write of this
   * store is under way and no notification waits, so it holds the lock alone); `written` must
   * follow once its statement is over.
   */
  writing(): boolean;
  /** A write `writing` announced is over. */
  written(): void;
  /** Queues the notification of a committed step. */
  send(payload: string): void;
  /** Sends what is queued, then stops (what cannot be sent is dropped). */
  close(): Promise<void>;
}

/**
 * Sends notifications after their steps commit, those that wait batched into one statement. A
 * NOTIFY in the step's own transaction would serialize every step's commit (PostgreSQL takes a
 * database-wide lock to queue notifications in commit order and holds it through the commit's
 * flush); sent apart, steps commit side by side and one short transaction queues many
 * notifications. That transaction writes no data, so it commits without waiting for its flush
 * (`synchronous_commit` off for it alone): a notification says only which step to read, and
 * the step itself was flushed before. A write made while no other one is under way notifies
 * in its own transaction still (one round trip less for a lone step, nothing to serialize
 * against); notifications may then overtake queued ones, which a reader's relay allows (it
 * fetches the task as it is, and skips a seq it relayed).
 */
export function createTaskNotifier(pool: Pool, channel: string, name: string): TaskNotifier {
  const pending: string[] = [];
  let sending: Promise<void> | undefined;
  let closed = false;
  let writes = 0;
  const statement = {
    name,
    text: `WITH quick AS (SELECT set_config('synchronous_commit', 'off', true))
SELECT pg_notify($1, payload) FROM quick, unnest($2::text[]) AS payload`,
  };
  const flush = async () => {
    while (pending.length > 0) {
      const batch = pending.splice(0, BATCH);
      try {
        await pool.query({ ...statement, values: [channel, batch] });
      } catch {
        if (closed) return;
        // The database is away: the batch waits for it (the listeners catch up after a drop).
        pending.unshift(...batch);
        if (pending.length > MAX_PENDING) pending.splice(0, pending.length - MAX_PENDING);
        await delay(RETRY_MS);
      }
    }
  };
  const start = () => {
    sending = flush().finally(() => {
      sending = undefined;
      if (pending.length > 0 && !closed) start();
    });
  };
  return {
    writing() {
      writes += 1;
      return writes === 1 && pending.length === 0 && sending === undefined;
    },
    written() {
      writes -= 1;
    },
    send(payload) {
      if (closed) return;
      pending.push(payload);
      if (sending === undefined) start();
    },
    async close() {
      closed = true;
      await sending;
      pending.length = 0;
    },
  };
}

/**
 * Runs the statement of a step, its notification in it when the notifier says so (a write alone),
 * else sent by the notifier once the step committed.
 */
export async function writeStep(
  state: StoreState,
  plain: { name: string; text: string },
  notifying: { name: string; text: string },
  payload: string,
  values: unknown[],
): Promise<QueryResult> {
  const inline = state.notifier.writing();
  try {
    const result = await unavailableOr(() =>
      state.pool.query(
        inline
          ? { ...notifying, values: [...values, state.channel, payload] }
          : { ...plain, values },
      ),
    );
    if (result.rowCount === 1 && !inline) state.notifier.send(payload);
    return result;
  } finally {
    state.notifier.written();
  }
}
