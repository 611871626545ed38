import type { ConversationStore, TaskStore } from '@agentport/core';
import type { Pool } from 'pg';

/** How often retention runs, and who hears of a run that failed. */
export interface RetentionOptions {
  /** Milliseconds between two runs (default 60,000). */
  intervalMs?: number;
  /** Called with the error of a run that failed (the database down, say); the next run tries again. */
  onError?: (error: unknown) => void;
}

/** Retention started by `startRetention`: one run on demand, and the stop of the timer. */
export interface Retention {
  /**
   * Deletes the expired tasks (their events with them) and conversations, unless another
   * replica's run holds the lock; whether this one ran.
   */
  runOnce(): Promise<boolean>;
  /** Stops the timer (a run under way finishes). */
  stop(): void;
}

/** What a retention run deletes from, and the lock its replicas share. */
export interface RetentionTarget {
  readonly pool: Pool;
  readonly schema: string;
  readonly tasks: Pick<TaskStore, 'deleteExpired'>;
  readonly conversations: Pick<ConversationStore, 'deleteExpired'>;
}

/**
 * Runs retention every `intervalMs` in whichever replica takes the schema's advisory lock first
 * (a transaction-level lock, `pg_try_advisory_xact_lock`: the others skip that run, and a replica
 * that dies lets go of it with its connection).
 */
export function startRetention(target: RetentionTarget, options: RetentionOptions = {}): Retention {
  const { pool, schema } = target;
  const runOnce = async (): Promise<boolean> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked',
        [`agentport.retention.${schema}`],
      );
      if (rows[0]?.locked === true) {
        await target.tasks.deleteExpired();
        await target.conversations.deleteExpired();
      }
      await client.query('COMMIT');
      return rows[0]?.locked === true;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
  const timer = setInterval(() => {
    runOnce().catch((error: unknown) => options.onError?.(error));
  }, options.intervalMs ?? 60_000);
  // Retention alone does not keep a process alive.
  timer.unref();
  return { runOnce, stop: () => clearInterval(timer) };
}
