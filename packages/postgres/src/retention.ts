import type { ConversationStore, TaskStore } from '@agentport/core';
import type { Pool } from 'pg';

/** How often retention runs, and who hears of a run that failed. */
export interface RetentionOptions {
  /** Milliseconds between two runs (default 60,000). */
  intervalMs?: number;
  /**
   * Milliseconds between two sweeps of the working tasks whose lease ran out, ended `failed`
   * `worker_lost` (default half the store's lease, at least 1,000).
   */
  sweepIntervalMs?: number;
  /** The agents whose lost tasks are run again (retry-safe) rather than ended `worker_lost`. */
  retried?: readonly string[];
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
  /** Ends `worker_lost` the working tasks whose lease ran out; their ids. */
  sweepOnce(): Promise<string[]>;
  /** Stops the timers (a run under way finishes). */
  stop(): void;
}

/** What a retention run deletes from, and the lock its replicas share. */
export interface RetentionTarget {
  readonly pool: Pool;
  readonly schema: string;
  readonly tasks: Pick<TaskStore, 'deleteExpired'> & {
    sweepLostTasks(options?: { except?: readonly string[] }): Promise<string[]>;
  };
  /** The sweep interval when the options give none. */
  readonly sweepIntervalMs: number;
  readonly conversations: Pick<ConversationStore, 'deleteExpired'>;
}

/**
 * Sweeps the tasks of dead replicas every `sweepIntervalMs`, and runs retention every `intervalMs` in whichever replica takes the schema's advisory lock first
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
  const sweepOnce = () => target.tasks.sweepLostTasks({ except: options.retried ?? [] });
  const timers = [
    setInterval(() => {
      runOnce().catch((error: unknown) => options.onError?.(error));
    }, options.intervalMs ?? 60_000),
    // Every replica sweeps: each task's end is a conditional step, so one sweeper wins it.
    setInterval(() => {
      sweepOnce().catch((error: unknown) => options.onError?.(error));
    }, options.sweepIntervalMs ?? target.sweepIntervalMs),
  ];
  // Retention alone does not keep a process alive.
  for (const timer of timers) timer.unref();
  return {
    runOnce,
    sweepOnce,
    stop: () => {
      for (const timer of timers) clearInterval(timer);
    },
  };
}
