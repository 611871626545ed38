import { Pool } from 'pg';
import { describe, expect, it } from 'vitest';
import { migrate } from './migrations.ts';
import { createPostgresStores } from './postgres-stores.ts';
import { DATABASE_URL, randomSchema } from './test-support/database.ts';

describe('createPostgresStores', () => {
  it("runs on a caller's pool, which close leaves open, and ends a pool it made", async () => {
    const pool = new Pool({ connectionString: DATABASE_URL, max: 2 });
    const schema = randomSchema();
    try {
      const stores = createPostgresStores({ pool, schema });
      expect(stores.pool).toBe(pool);
      await expect(migrate({ pool, schema })).resolves.toEqual([1, 2, 3, 4]);
      await stores.tasks.create({ id: 't1', agentName: 'echo', input: 'hi', metadata: {} });
      await stores.close();
      await expect(pool.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
      const own = createPostgresStores({ url: DATABASE_URL, schema });
      await expect(own.tasks.get('t1')).resolves.toMatchObject({ id: 't1' });
      await own.close();
      expect(own.pool.ended).toBe(true);
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    }
  });

  it('is ready while the database answers and nobody listens, and once its feed listens', async () => {
    const schema = randomSchema();
    const stores = createPostgresStores({ url: DATABASE_URL, schema });
    try {
      await stores.migrate();
      await expect(stores.ready()).resolves.toBe(true);
      stores.tasks.subscribe(() => undefined);
      // Asked at once: it waits for the LISTEN connection being made.
      await expect(stores.tasks.feedReady()).resolves.toBe(true);
      await expect(stores.ready()).resolves.toBe(true);
    } finally {
      await stores.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await stores.close();
    }
  });
});
