import { InvalidInputError } from '@agentport/core';
import { Client } from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { applyMigrations, MIGRATIONS, migrate, migrationSql } from './migrations.ts';
import { createPostgresStores } from './postgres-stores.ts';
import { DATABASE_URL, randomSchema } from './test-support/database.ts';

const schemas: string[] = [];
const admin = async () => {
  const client = new Client({ connectionString: DATABASE_URL });
  await client.connect();
  return client;
};

afterEach(async () => {
  const client = await admin();
  for (const schema of schemas.splice(0)) {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  }
  await client.end();
});

function freshSchema(): string {
  const schema = randomSchema();
  schemas.push(schema);
  return schema;
}

async function tablesOf(schema: string): Promise<string[]> {
  const client = await admin();
  const { rows } = await client.query<{ table_name: string }>(
    'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
    [schema],
  );
  await client.end();
  return rows.map((row) => row.table_name);
}

const ALL_TABLES = ['conversation_messages', 'conversations', 'migrations', 'task_events', 'tasks'];

describe('migrate', () => {
  it('creates one set of tables when several replicas migrate a fresh schema at once', async () => {
    const schema = freshSchema();
    const replicas = Array.from({ length: 6 }, () =>
      createPostgresStores({ url: DATABASE_URL, schema }),
    );
    try {
      const applied = await Promise.all(replicas.map((stores) => stores.migrate()));
      // One replica applied every step; the others waited on the lock and found them applied.
      expect(applied.filter((versions) => versions.length > 0)).toEqual([[1, 2, 3, 4]]);
      expect(applied.filter((versions) => versions.length === 0)).toHaveLength(5);
    } finally {
      await Promise.all(replicas.map((stores) => stores.close()));
    }
    expect(await tablesOf(schema)).toEqual(ALL_TABLES);
  });

  it('upgrades a schema of an older version by the steps it misses only, and records each', async () => {
    const schema = freshSchema();
    const stores = createPostgresStores({ url: DATABASE_URL, schema });
    try {
      const client = await stores.pool.connect();
      try {
        await expect(applyMigrations(client, schema, MIGRATIONS.slice(0, 1))).resolves.toEqual([1]);
      } finally {
        client.release();
      }
      expect(await tablesOf(schema)).toEqual(['migrations', 'task_events', 'tasks']);
      // A task written by the version of the code that had only the first step.
      await stores.pool.query(
        `INSERT INTO "${schema}".tasks (id, context_id, agent_name, status, input, messages,
          artifacts, metadata, created_at, updated_at, seq, earliest_after, retain_ms)
        VALUES ('kept', 'kept', 'echo', 'submitted', 'hi', '[]', '[]', '{}', now(), now(), 1, 0, 3600000)`,
      );
      await expect(migrate({ pool: stores.pool, schema })).resolves.toEqual([2, 3, 4]);
      await expect(stores.migrate()).resolves.toEqual([]);
      await expect(stores.tasks.get('kept')).resolves.toMatchObject({ id: 'kept' });
      const { rows } = await stores.pool.query(
        `SELECT version, name FROM "${schema}".migrations ORDER BY version`,
      );
      expect(rows).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
    } finally {
      await stores.close();
    }
  });

  it('refuses a schema name it would not put in SQL as it is', () => {
    for (const schema of ['Public', 'a-b', 'x; DROP TABLE y', '', '1abc', 'a'.repeat(49)]) {
      expect(() => createPostgresStores({ url: DATABASE_URL, schema })).toThrow(InvalidInputError);
      expect(() => migrationSql({ schema })).toThrow(InvalidInputError);
    }
  });
});

describe('migrationSql', () => {
  it('prints SQL an operator runs by hand: the schema made, run again a no-op, as migrate would', async () => {
    const schema = freshSchema();
    const sql = migrationSql({ schema });
    expect(sql).toContain(`CREATE TABLE "${schema}".tasks`);
    expect(sql).toContain('pg_advisory_xact_lock');
    expect(migrationSql()).toContain('CREATE TABLE "agentport".tasks');
    const client = await admin();
    try {
      await client.query(sql);
      await client.query(sql);
    } finally {
      await client.end();
    }
    expect(await tablesOf(schema)).toEqual(ALL_TABLES);
    const stores = createPostgresStores({ url: DATABASE_URL, schema });
    try {
      await expect(stores.migrate()).resolves.toEqual([]);
    } finally {
      await stores.close();
    }
  });
});
