// The PostgreSQL servers of issue 35's scenarios: the gateway on `@agentport/postgres` and the
// official SDK on Express with its `DatabaseTaskStore` (Kysely on pg), both on the bench's
// database, each in a schema the parent names (BENCH_PG_SCHEMA) and drops at the end.
import { createServer } from 'node:http';
import { DefaultRequestHandler } from '@a2a-js/sdk/server';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import { jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { createPostgresStores } from '@agentport/postgres';
import express from 'express';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { card, listenOn, taskEchoExecutor } from './anchors.ts';

/** The bench's database: DATABASE_URL, else the local test database. */
export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The schema a server child uses, named by the parent. */
export function benchSchema(): string {
  const schema = process.env.BENCH_PG_SCHEMA;
  if (schema === undefined || !/^[a-z0-9_]{1,48}$/.test(schema)) {
    throw new Error('BENCH_PG_SCHEMA must name the bench schema');
  }
  return schema;
}

/** Opens the gateway's PostgreSQL stores in the bench schema, migrated. */
export async function openGatewayStores() {
  const stores = createPostgresStores({ url: DATABASE_URL, schema: benchSchema() });
  await stores.migrate();
  return stores;
}

/**
 * The SDK's tasks table in the SDK schema, as its `a2a-db` migration 0001 creates it (the store
 * never creates it itself): the bench runs the same DDL in its set-up.
 */
function sdkTableSql(schema: string): string {
  const key = 'varchar(255) collate "C" not null';
  return `create schema if not exists ${schema};
create table if not exists ${schema}.tasks (tenant ${key}, owner ${key},
  id varchar(36) collate "C" not null, context_id varchar(36) collate "C" not null,
  status_last_updated bigint not null, status_state varchar(255) collate "C",
  status text, artifacts text, history text, metadata text, protocol_version varchar(255),
  constraint tasks_pkey primary key (tenant, owner, id));
create index if not exists tasks_scope_updated_idx on ${schema}.tasks (tenant, owner, status_last_updated, id);
create index if not exists tasks_scope_context_updated_idx on ${schema}.tasks (tenant, owner, context_id, status_last_updated, id);`;
}

/** `@a2a-js/sdk` on Express 5 with `DatabaseTaskStore` on Kysely + pg, `/task/jsonrpc`. */
export async function startSdkExpressPostgres(): Promise<number> {
  const schema = `${benchSchema()}_sdk`;
  const pool = new pg.Pool({
    connectionString: DATABASE_URL,
    max: 10,
    options: `-c search_path=${schema}`,
  });
  await pool.query(sdkTableSql(schema));
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  const app = express();
  const server = createServer(app);
  const port = await listenOn(server);
  const handler = new DefaultRequestHandler(
    card(`http://127.0.0.1:${port}/task/jsonrpc`),
    new DatabaseTaskStore(db),
    taskEchoExecutor,
  );
  app.use(
    '/task/jsonrpc',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  return port;
}

/** Drops the bench's schemas (the gateway's and the SDK's). */
export async function dropBenchSchemas(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(
      `drop schema if exists ${schema} cascade; drop schema if exists ${schema}_sdk cascade`,
    );
  } finally {
    await client.end();
  }
}

/** The database's committed transactions so far (`pg_stat_database.xact_commit`), flushed. */
async function commits(client: pg.Client): Promise<number> {
  // Backends flush their counters when idle, within 10 s of going idle (PostgreSQL 15).
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  await client.query('select pg_stat_clear_snapshot()');
  const result = await client.query<{ n: string }>(
    'select xact_commit as n from pg_stat_database where datname = current_database()',
  );
  return Number(result.rows[0]?.n ?? Number.NaN);
}

/**
 * Database round trips per completed task: `count` sequential requests, each one completed
 * task, and the database's committed transactions meanwhile, per request (every statement of
 * the stores runs on its own, one transaction a round trip; the reading query's own commits,
 * two, are taken off).
 */
export async function roundTripsPerTask(
  request: () => Promise<void>,
  count: number,
): Promise<number> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    const before = await commits(client);
    for (let index = 0; index < count; index += 1) await request();
    const after = await commits(client);
    return (after - before - 2) / count;
  } finally {
    await client.end();
  }
}
