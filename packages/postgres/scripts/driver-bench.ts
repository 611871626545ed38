// Times `pg` (Pool) against `postgres` (postgres.js) on what the task store does, on the database
// of DATABASE_URL (default the tests' one), in a schema of its own that it drops at the end:
//   node packages/postgres/scripts/driver-bench.ts
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import postgres from 'postgres';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const TASKS = 64;
const DURATION_MS = Number(process.env.BENCH_MS ?? 3_000);
const POOL_SIZE = 16;

/** One driver's two operations on task `index`. */
interface Driver {
  name: string;
  /** The step as SELECT ... FOR UPDATE, UPDATE, INSERT, pg_notify in a transaction. */
  step(index: number): Promise<void>;
  /** The step as the store writes it: a read, then one conditional statement (seq unchanged). */
  casStep(index: number): Promise<void>;
  read(index: number): Promise<void>;
  close(): Promise<void>;
}

const events = (seq: number) => [
  JSON.stringify({ type: 'text-delta', delta: `a${seq}` }),
  JSON.stringify({ type: 'text-delta', delta: `b${seq}` }),
  JSON.stringify({ type: 'status-update', status: 'working', timestamp: new Date().toISOString() }),
];

/** The conditional statement of a step: applied only when the task's seq is still the one read. */
const casSql = (tasks: string, log: string) => `WITH updated AS (
  UPDATE ${tasks} SET seq = $2::integer + 3, output = coalesce(output, '') || 'x', updated_at = now()
  WHERE id = $1 AND seq = $2::integer RETURNING id
), logged AS (
  INSERT INTO ${log} (task_id, seq, event)
  SELECT updated.id, $2::integer + e.ordinality, e.value
  FROM updated, json_array_elements($3::text::json) WITH ORDINALITY AS e(value, ordinality)
)
SELECT pg_notify('bench', $4) FROM updated`;

/** `pg`, its statements unnamed (parsed on every call) or named (prepared once per connection). */
function pgDriver(prepared: boolean): Driver {
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
  const named = (name: string, text: string, values: unknown[]) =>
    prepared ? { name, text, values } : { text, values };
  return {
    name: prepared ? 'pg (named)' : 'pg',
    async step(index) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const { rows } = await client.query(
          named('lock', `SELECT seq FROM ${schema}.tasks WHERE id = $1 FOR UPDATE`, [`t${index}`]),
        );
        const seq = Number(rows[0].seq);
        await client.query(
          named(
            'update',
            `UPDATE ${schema}.tasks SET seq = $2, output = coalesce(output, '') || 'x', updated_at = now() WHERE id = $1`,
            [`t${index}`, seq + 3],
          ),
        );
        await client.query(
          named(
            'insert',
            `INSERT INTO ${schema}.task_events (task_id, seq, event)
             SELECT $1, $2 + ordinality, value FROM unnest($3::jsonb[]) WITH ORDINALITY AS e(value, ordinality)`,
            [`t${index}`, seq, events(seq)],
          ),
        );
        await client.query(
          named('notify', 'SELECT pg_notify($1, $2)', ['bench', `t${index}:${seq + 3}`]),
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
    async casStep(index) {
      for (;;) {
        const { rows } = await pool.query(
          named('cas-read', `SELECT seq FROM ${schema}.tasks WHERE id = $1`, [`t${index}`]),
        );
        const seq = Number(rows[0].seq);
        const values = [`t${index}`, seq, `[${events(seq).join(',')}]`, `t${index}:${seq + 3}`];
        const result = await pool.query(
          named('cas-step', casSql(`${schema}.tasks`, `${schema}.task_events`), values),
        );
        if (result.rowCount === 1) return;
      }
    },
    async read(index) {
      await pool.query(named('read', `SELECT * FROM ${schema}.tasks WHERE id = $1`, [`t${index}`]));
    },
    close: () => pool.end(),
  };
}

function postgresJsDriver(): Driver {
  const sql = postgres(url, { max: POOL_SIZE, onnotice: () => {} });
  const tasks = sql(`${schema}.tasks`);
  const log = sql(`${schema}.task_events`);
  return {
    name: 'postgres',
    async step(index) {
      await sql.begin(async (transaction) => {
        const [row] =
          await transaction`SELECT seq FROM ${tasks} WHERE id = ${`t${index}`} FOR UPDATE`;
        const seq = Number(row?.seq);
        await transaction`UPDATE ${tasks} SET seq = ${seq + 3}, output = coalesce(output, '') || 'x', updated_at = now() WHERE id = ${`t${index}`}`;
        await transaction`INSERT INTO ${log} (task_id, seq, event)
          SELECT ${`t${index}`}, ${seq} + ordinality, value FROM unnest(${events(seq)}::jsonb[]) WITH ORDINALITY AS e(value, ordinality)`;
        await transaction`SELECT pg_notify('bench', ${`t${index}:${seq + 3}`})`;
      });
    },
    async casStep(index) {
      for (;;) {
        const [row] = await sql`SELECT seq FROM ${tasks} WHERE id = ${`t${index}`}`;
        const seq = Number(row?.seq);
        const result = await sql.unsafe(
          casSql(`${schema}.tasks`, `${schema}.task_events`),
          [`t${index}`, seq, `[${events(seq).join(',')}]`, `t${index}:${seq + 3}`],
          { prepare: true },
        );
        if (result.count === 1) return;
      }
    },
    async read(index) {
      await sql`SELECT * FROM ${tasks} WHERE id = ${`t${index}`}`;
    },
    close: () => sql.end(),
  };
}

async function setUp(): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(
    `CREATE TABLE ${schema}.tasks (id text PRIMARY KEY, seq bigint NOT NULL, output text, updated_at timestamptz NOT NULL)`,
  );
  await client.query(
    `CREATE TABLE ${schema}.task_events (task_id text NOT NULL, seq bigint NOT NULL, event jsonb NOT NULL, PRIMARY KEY (task_id, seq))`,
  );
  await client.query(
    `INSERT INTO ${schema}.tasks SELECT 't' || n, 0, NULL, now() FROM generate_series(0, ${TASKS - 1}) n`,
  );
  await client.end();
}

async function tearDown(): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA ${schema} CASCADE`);
  await client.end();
}

/** Operations per second of `operation` run by `concurrency` workers for the duration. */
async function measure(
  operation: (index: number) => Promise<void>,
  concurrency: number,
): Promise<number> {
  let done = 0;
  const end = performance.now() + DURATION_MS;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      // Each worker its own tasks: the figure is the driver's, not the row lock's.
      let round = 0;
      while (performance.now() < end) {
        await operation((worker + concurrency * round) % TASKS);
        round += 1;
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

await setUp();
const results: Record<string, Record<string, number>> = {};
try {
  const makers = [() => pgDriver(false), () => pgDriver(true), postgresJsDriver];
  for (const make of [...makers, ...makers]) {
    const driver = make();
    await driver.read(0);
    for (const concurrency of [1, 16]) {
      for (const [label, operation] of [
        ['write step', driver.step],
        ['cas step', driver.casStep],
        ['read', driver.read],
      ] as const) {
        const key = `${label} c=${concurrency}`;
        const rate = await measure(operation, concurrency);
        results[key] ??= {};
        // The best of two rounds per driver (the first warms the server and the JIT).
        results[key][driver.name] = Math.max(results[key][driver.name] ?? 0, rate);
      }
    }
    await driver.close();
  }
} finally {
  await tearDown();
}
console.log(
  'operation          pg ops/s   pg (named) ops/s   postgres ops/s   postgres/pg   postgres/pg (named)',
);
for (const [key, rates] of Object.entries(results)) {
  const { pg: plain = 0, 'pg (named)': named = 0, postgres: js = 0 } = rates;
  console.log(
    [
      key.padEnd(18),
      plain.toFixed(0).padStart(8),
      named.toFixed(0).padStart(16),
      js.toFixed(0).padStart(14),
      (js / plain).toFixed(2).padStart(11),
      (js / named).toFixed(2).padStart(19),
    ].join('   '),
  );
}
