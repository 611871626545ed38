import { setTimeout as delay } from 'node:timers/promises';
import type { Pool } from 'pg';

/** Most payloads one statement sends. */
const BATCH = 500;
/** Most payloads kept while the database is away (the oldest go first). */
const MAX_PENDING = 10_000;
/** The wait before a batch that failed is sent again. */
const RETRY_MS = 100;

/** What sends the notifications of the steps a store committed. */
export interface TaskNotifier {
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
 * the step itself was flushed before. Steps of one task are notified in their order.
 */
export function createTaskNotifier(pool: Pool, channel: string, name: string): TaskNotifier {
  const pending: string[] = [];
  let sending: Promise<void> | undefined;
  let closed = false;
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
