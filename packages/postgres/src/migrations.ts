import type { Pool, PoolClient } from 'pg';
import { checkedSchema } from './schema-name.ts';
import { unavailableOr } from './unavailable.ts';

/** One step of the schema: its version (1, 2, 3, ... in order), a name, and its SQL. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  /** The SQL of the step, for a schema: `s` is the schema's quoted name. */
  readonly sql: (s: string) => string;
}

/**
 * The schema's steps, oldest first. A released step never changes: a change of the schema is a
 * new step at the end, which `migrate` applies to a database that has the ones before it.
 */
export const MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    name: 'tasks and their event log',
    sql: (s: string) => `
CREATE TABLE ${s}.tasks (
  id text PRIMARY KEY,
  -- Creation order: listings go newest first by it, and their cursor names it.
  sequence bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  context_id text NOT NULL,
  agent_name text NOT NULL,
  status text NOT NULL,
  input text NOT NULL,
  output text,
  status_message json,
  error json,
  input_request json,
  messages json NOT NULL,
  artifacts json NOT NULL,
  metadata json NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- The sequence number of the last event of its log.
  seq integer NOT NULL,
  -- The smallest "after" its log still answers: the events up to it were dropped (its cap).
  earliest_after integer NOT NULL,
  -- How long it is kept once finished, and when it is gone (set as it finishes).
  retain_ms bigint NOT NULL,
  expires_at timestamptz
);
CREATE INDEX tasks_context_idx ON ${s}.tasks (context_id, sequence);
CREATE INDEX tasks_expires_idx ON ${s}.tasks (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE ${s}.task_events (
  task_id text NOT NULL REFERENCES ${s}.tasks (id) ON DELETE CASCADE,
  seq integer NOT NULL,
  event json NOT NULL,
  PRIMARY KEY (task_id, seq)
);`,
  },
  {
    version: 2,
    name: 'conversations',
    sql: (s: string) => `
CREATE TABLE ${s}.conversations (
  context_id text PRIMARY KEY,
  agent_name text NOT NULL,
  waiting_task_id text,
  -- Its messages are numbered from 0; those before first_index are dropped (its bound, or a
  -- conversation of that name that expired before this one started).
  first_index bigint NOT NULL,
  next_index bigint NOT NULL,
  updated_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX conversations_expires_idx ON ${s}.conversations (expires_at);
CREATE TABLE ${s}.conversation_messages (
  context_id text NOT NULL REFERENCES ${s}.conversations (context_id) ON DELETE CASCADE,
  index bigint NOT NULL,
  message json NOT NULL,
  PRIMARY KEY (context_id, index)
);`,
  },
  {
    version: 3,
    name: 'task leases',
    sql: (s: string) => `
-- The replica running a working task, and until when it answers for it (it renews the lease).
ALTER TABLE ${s}.tasks ADD COLUMN lease_owner text, ADD COLUMN lease_expires_at timestamptz;`,
  },
  {
    version: 4,
    name: 'submitted tasks index',
    sql: (s: string) => `
-- The claims of the tasks left submitted, newest first for an agent.
CREATE INDEX tasks_submitted_idx ON ${s}.tasks (agent_name, sequence) WHERE status = 'submitted';`,
  },
]);

/** Where the migrations go. */
export interface MigrationOptions {
  /** The schema (default `agentport`), created when it is not there. */
  schema?: string;
}

/** What `migrate` needs: the pool it runs on, and the schema. */
export interface MigrateOptions extends MigrationOptions {
  pool: Pool;
}

/** The key of the advisory lock that migrations of a schema run under. */
const LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtext('agentport.migrate'), hashtext($1))";

function preamble(s: string): string {
  return `CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${s}.migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);`;
}

function recordSql(s: string, migration: Migration): string {
  return `INSERT INTO ${s}.migrations (version, name) VALUES (${migration.version}, '${migration.name.replaceAll("'", "''")}')`;
}

/**
 * The SQL that creates the schema and every step, for an operator to run by hand (`psql -f`):
 * one transaction under the same advisory lock as `migrate`, each step applied only when the
 * migrations table does not have it yet (so it also upgrades a schema of an older version).
 *
 * @example
 * console.log(migrationSql({ schema: 'agentport' }));
 */
export function migrationSql(options: MigrationOptions = {}): string {
  const schema = checkedSchema(options.schema);
  const s = `"${schema}"`;
  const steps = MIGRATIONS.map(
    (migration) => `-- ${migration.version}: ${migration.name}
DO $migration$ BEGIN
IF NOT EXISTS (SELECT 1 FROM ${s}.migrations WHERE version = ${migration.version}) THEN
${migration.sql(s).trim()}
${recordSql(s, migration)};
END IF;
END $migration$;`,
  );
  return [
    'BEGIN;',
    `${LOCK_SQL.replace('$1', `'${schema}'`)};`,
    preamble(s),
    ...steps,
    'COMMIT;',
    '',
  ].join('\n');
}

/** Applies the steps a schema misses, in one transaction under the schema's advisory lock. */
export async function applyMigrations(
  client: PoolClient,
  schema: string,
  migrations: readonly Migration[],
): Promise<number[]> {
  const s = `"${schema}"`;
  await client.query('BEGIN');
  try {
    // Replicas starting at once wait here for the first, then find its steps applied.
    await client.query(LOCK_SQL, [schema]);
    await client.query(preamble(s));
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${s}.migrations`);
    const applied = new Set(rows.map((row) => row.version));
    const missing = migrations.filter((migration) => !applied.has(migration.version));
    for (const migration of missing) {
      await client.query(migration.sql(s));
      await client.query(recordSql(s, migration));
    }
    await client.query('COMMIT');
    return missing.map((migration) => migration.version);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * Creates the schema, or upgrades it to this version, applying the steps it misses in one
 * transaction under a PostgreSQL advisory lock (replicas starting at once are safe); resolves
 * with the versions it applied (none: it was up to date). StoreUnavailableError when the
 * database cannot be reached.
 *
 * @example
 * await migrate({ pool, schema: 'agentport' });
 */
export async function migrate(options: MigrateOptions): Promise<number[]> {
  const schema = checkedSchema(options.schema);
  return unavailableOr(async () => {
    const client = await options.pool.connect();
    try {
      return await applyMigrations(client, schema, MIGRATIONS);
    } finally {
      client.release();
    }
  });
}
