import { setTimeout as delay } from 'node:timers/promises';
import { createPostgresStores, type PostgresStores } from '@agentport/postgres';
import type { Logger } from 'pino';
import {
  ConfigError,
  type GatewayConfig,
  type PostgresStoreConfig,
  validateConfig,
} from './config.ts';
import type { GatewayOptions } from './gateway.ts';

/** The durable stores `serve` runs on, and what the gateway is given of them. */
export interface ServeStores {
  readonly options: Pick<GatewayOptions, 'store' | 'conversations' | 'storesReady' | 'claimTasks'>;
  /** Stops their retention and closes their pool. */
  close(): Promise<void>;
}

/** How long `serve` waits between two tries to reach the database at start. */
const MIGRATE_RETRY_MS = 1_000;

/** How often one replica deletes the expired tasks and conversations. */
const RETENTION_INTERVAL_MS = 60_000;

/**
 * The PostgreSQL database the config names (`store.postgres`), else `DATABASE_URL`; undefined
 * for the in-memory default.
 */
export function postgresConfigOf(
  config: GatewayConfig,
  environment: NodeJS.ProcessEnv = process.env,
): PostgresStoreConfig | undefined {
  if (config.store !== undefined) return config.store.postgres;
  const url = environment.DATABASE_URL;
  if (url === undefined || url === '') return undefined;
  try {
    validateConfig({ store: { postgres: { url } } });
  } catch {
    throw new ConfigError('Invalid DATABASE_URL: must be a postgres:// URL');
  }
  return { url };
}

/**
 * Migrates the schema, trying again every second while the database cannot be reached (each
 * failure logged, never its URL); false when `signal` aborted first.
 */
async function migrateWhenReachable(
  stores: PostgresStores,
  logger: Logger,
  signal: AbortSignal,
): Promise<boolean> {
  for (let attempt = 1; !signal.aborted; attempt += 1) {
    try {
      const applied = await stores.migrate();
      logger.info({ applied }, 'database schema up to date');
      return true;
    } catch (error) {
      logger.warn({ attempt, code: (error as { code?: string }).code }, 'database unreachable');
      // Less when the wait is given up (a stop signal): the loop then ends.
      await delay(MIGRATE_RETRY_MS, undefined, { signal }).catch(() => undefined);
    }
  }
  return false;
}

/**
 * Opens the stores of a config that names a database: migrated before anything is served,
 * retention run every minute (by one replica at a time), readiness from the database; the lost
 * tasks of the `retried` agents (retry-safe ones) are left for the runners to run again. Resolves
 * undefined for the in-memory default, or when `signal` aborted before the database answered.
 */
export async function openServeStores(
  config: GatewayConfig,
  logger: Logger,
  signal: AbortSignal,
  retried: readonly string[] = [],
): Promise<ServeStores | undefined> {
  const postgres = postgresConfigOf(config);
  if (postgres === undefined) return undefined;
  const stores = createPostgresStores({
    url: postgres.url,
    ...(postgres.schema === undefined ? {} : { schema: postgres.schema }),
    ...(postgres.leaseMs === undefined ? {} : { leaseMs: postgres.leaseMs }),
  });
  // Where the tasks are (never the URL, which may hold a password): host, database, schema.
  const { host, pathname } = new URL(postgres.url);
  const where = { host, database: pathname.slice(1), schema: postgres.schema ?? 'agentport' };
  if (!(await migrateWhenReachable(stores, logger.child(where), signal))) {
    await stores.close();
    return undefined;
  }
  const retention = stores.startRetention({
    intervalMs: RETENTION_INTERVAL_MS,
    // Their lost tasks are run again by a replica's runner instead of ended `worker_lost`.
    retried,
    onError: (error) =>
      logger.warn({ code: (error as { code?: string }).code }, 'retention run failed'),
  });
  return {
    options: {
      store: stores.tasks,
      conversations: stores.conversations,
      storesReady: () => stores.ready(),
      // Replicas share one queue: one at its limit leaves tasks for the others.
      claimTasks: true,
    },
    async close() {
      retention.stop();
      await stores.close();
    },
  };
}
