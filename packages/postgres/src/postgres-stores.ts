import type { ConversationStore } from '@agentport/core';
import { Pool } from 'pg';
import { migrate } from './migrations.ts';
import { createPostgresConversationStore } from './postgres-conversation-store.ts';
import { createPostgresTaskStore, type PostgresTaskStore } from './postgres-task-store.ts';
import { type Retention, type RetentionOptions, startRetention } from './retention.ts';
import { checkedSchema } from './schema-name.ts';

/** Where the stores live, and what they keep. */
export interface PostgresStoresOptions {
  /** The database's URL (`postgres://user@host:5432/database`); the stores make their own pool. */
  url?: string;
  /** A pool of the caller's instead of `url` (`close` leaves it open). */
  pool?: Pool;
  /** The size of the pool made for `url` (default 10). */
  maxConnections?: number;
  /** The schema of their tables (default `agentport`). */
  schema?: string;
  /** How long a finished task is kept, in milliseconds (default one hour). */
  ttlMs?: number;
  /** How many events of one task's log are kept (default 10,000). */
  maxEventsPerTask?: number;
  /** How long a conversation is kept after its last change, in milliseconds (default one hour). */
  conversationTtlMs?: number;
  /** How many messages one conversation keeps (default 200). */
  maxMessagesPerConversation?: number;
  /** The clock, for tests (default `Date.now`). */
  now?: () => number;
  /** How long the lease on a working task lasts unrenewed, in milliseconds (default 30,000). */
  leaseMs?: number;
}

/** The task and conversation stores on one pool, with their schema's migration and health. */
export interface PostgresStores {
  readonly tasks: PostgresTaskStore;
  readonly conversations: ConversationStore;
  /** The pool they run on. */
  readonly pool: Pool;
  /** Creates or upgrades their schema (see `migrate`); the versions it applied. */
  migrate(): Promise<number[]>;
  /**
   * Whether they can serve: the database answers, and the task store hears other processes'
   * changes when it has listeners. Never rejects.
   */
  ready(): Promise<boolean>;
  /**
   * Deletes expired tasks (with their events) and conversations every `intervalMs` (one minute),
   * in one replica at a time: the one that takes the schema's advisory lock for that run.
   */
  startRetention(options?: RetentionOptions): Retention;
  /** Stops listening, and ends the pool when it made it. */
  close(): Promise<void>;
}

/** How long a new connection may take before a call fails with StoreUnavailableError. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Creates the PostgreSQL task store and conversation store on one pool (made from `url`, or the
 * caller's `pool`), in one schema; call `migrate()` once before using them. A database that
 * cannot be reached makes their calls reject with StoreUnavailableError (503), and the process
 * keeps running.
 *
 * @example
 * const stores = createPostgresStores({ url: process.env.DATABASE_URL });
 * await stores.migrate();
 * const runner = createTaskRunner({ agent, store: stores.tasks, conversations: stores.conversations });
 */
export function createPostgresStores(options: PostgresStoresOptions): PostgresStores {
  const schema = checkedSchema(options.schema);
  const owned = options.pool === undefined;
  const pool =
    options.pool ??
    new Pool({
      connectionString: options.url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
  // An idle connection that breaks (a restarted server) is dropped; the next call makes another.
  if (owned) pool.on('error', () => undefined);
  const tasks = createPostgresTaskStore({
    pool,
    schema,
    ttlMs: options.ttlMs,
    maxEventsPerTask: options.maxEventsPerTask,
    now: options.now,
    leaseMs: options.leaseMs,
  });
  const conversations = createPostgresConversationStore({
    pool,
    schema,
    ttlMs: options.conversationTtlMs,
    maxMessagesPerConversation: options.maxMessagesPerConversation,
    now: options.now,
  });
  let closed = false;
  return {
    tasks,
    conversations,
    pool,
    migrate: () => migrate({ pool, schema }),
    startRetention: (retention) =>
      startRetention(
        {
          pool,
          schema,
          tasks,
          conversations,
          sweepIntervalMs: Math.max(1_000, Math.floor((options.leaseMs ?? 30_000) / 2)),
        },
        retention,
      ),
    async ready() {
      try {
        await pool.query('SELECT 1');
      } catch {
        return false;
      }
      return tasks.feedReady();
    },
    async close() {
      if (closed) return;
      closed = true;
      await tasks.close();
      if (owned) await pool.end();
    },
  };
}
