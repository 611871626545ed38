import { randomUUID } from 'node:crypto';
import { afterEach } from 'vitest';
import {
  createPostgresStores,
  type PostgresStores,
  type PostgresStoresOptions,
} from '../postgres-stores.ts';

/** The tests' database: DATABASE_URL, else the local server of the project's machines. */
export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A schema name no other test run uses. */
export function randomSchema(): string {
  return `test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}

/**
 * Stores made by a test file, each in a schema of its own or one it shares, migrated; every
 * schema is dropped and every store closed after each test.
 */
export function useStores(): (options?: Partial<PostgresStoresOptions>) => Promise<PostgresStores> {
  const made: Array<{ stores: PostgresStores; schema: string }> = [];
  afterEach(async () => {
    const schemas = new Set(made.map(({ schema }) => schema));
    const first = made[0];
    for (const schema of schemas) {
      await first?.stores.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
    for (const { stores } of made.splice(0)) await stores.close();
  });
  return async (options = {}) => {
    const schema = options.schema ?? randomSchema();
    const stores = createPostgresStores({ url: DATABASE_URL, ...options, schema });
    made.push({ stores, schema });
    await stores.migrate();
    return stores;
  };
}
