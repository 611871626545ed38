import { randomUUID } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { SendMessageRequest, type StreamResponse, TaskState } from '@a2a-js/sdk';
import type { Task } from '@agentport/core';
import { createPostgresStores } from '@agentport/postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { gatewayProcesses, withConfigFile } from '../testing/gateway-process.ts';
import { collect, officialClient, outputOf } from '../testing/sdk-client.ts';
import { readEvents } from '../testing/sse.ts';

// Gateway processes sharing one PostgreSQL database, each a replica: what any of them is asked
// about a task another one runs. The tests' database is DATABASE_URL, else the local server.
const DATABASE = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
const schemas: string[] = [];
const start = gatewayProcesses();

/** A config of its own schema (dropped after the file), on `database`. */
function configOf(
  database: URL,
  leaseMs?: number,
  extra: Record<string, unknown> = {},
): { source: string; schema: string } {
  const schema = `replicas_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  schemas.push(schema);
  const store = { postgres: { url: database.href, schema, ...(leaseMs && { leaseMs }) } };
  return { source: `export default ${JSON.stringify({ store, ...extra })};\n`, schema };
}

afterAll(async () => {
  const stores = createPostgresStores({ url: DATABASE.href });
  for (const schema of schemas) await stores.pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await stores.close();
});

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read field by field
async function post(url: string, path: string, body: unknown = {}): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { http: response.status, ...((await response.json()) as object) };
}

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read field by field
async function get(url: string, path: string): Promise<any> {
  const response = await fetch(`${url}${path}`);
  return { http: response.status, ...((await response.json()) as object) };
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('replicas on one PostgreSQL database', () => {
  it("reads, lists, streams and cancels through B a task running on A, and A's agent stops", async () => {
    const { source } = configOf(DATABASE);
    await withConfigFile(source, async (file) => {
      const [a, b] = await Promise.all([start(['--config', file]), start(['--config', file])]);
      const created = await post(a.url, '/agents/ticker/tasks', { input: '100 every 50ms' });
      const { id } = created.task as Task;
      expect((await get(b.url, `/agents/ticker/tasks/${id}`)).task.id).toBe(id);
      const listed = await get(b.url, '/agents/ticker/tasks?limit=5');
      expect(listed.tasks.map((task: Task) => task.id)).toContain(id);
      // B's stream of A's task: the log from the start, then live events, resumable by id.
      let lastId = '';
      let ticks = 0;
      await readEvents(
        await fetch(`${b.url}/agents/ticker/tasks/${id}/events?lastEventId=0`),
        (event) => {
          if (event.event === 'text-delta') ticks += 1;
          lastId = event.id ?? lastId;
          if (ticks === 3) void post(b.url, `/agents/ticker/tasks/${id}/cancel`);
        },
      );
      expect(ticks).toBeGreaterThanOrEqual(3);
      const ended = await get(a.url, `/agents/ticker/tasks/${id}`);
      expect(ended.task.status).toBe('canceled');
      // A's agent was aborted: its output grows no more.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await get(a.url, `/agents/ticker/tasks/${id}`)).task.output).toBe(ended.task.output);
      const resumed = await readEvents(
        await fetch(`${b.url}/agents/ticker/tasks/${id}/events`, {
          headers: { 'last-event-id': String(Number(lastId) - 2) },
        }),
      );
      expect(resumed[0]?.id).toBe(String(Number(lastId) - 1));
    });
  });

  it('rejoins through B a REST stream and a compat stream that A runs', async () => {
    const { source } = configOf(DATABASE);
    await withConfigFile(source, async (file) => {
      const [a, b] = await Promise.all([start(['--config', file]), start(['--config', file])]);
      for (const [path, body] of [
        ['/agents/ticker/stream', { input: '5 every 100ms' }],
        ['/compat/runs', { agent_name: 'ticker', input: '5 every 100ms', stream: true }],
      ] as const) {
        const controller = new AbortController();
        const first = await fetch(`${a.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: controller.signal,
        });
        const location = first.headers.get('content-location') as string;
        let lastId = '';
        await readEvents(first, (event) => {
          lastId = event.id ?? lastId;
          if (event.event === 'text-delta') controller.abort();
        }).catch(() => undefined);
        const rest = await readEvents(
          await fetch(`${b.url}${location}`, { headers: { 'last-event-id': lastId } }),
        );
        expect(Number(rest[0]?.id)).toBe(Number(lastId) + 1);
        expect(rest.at(-1)?.event).toBe('done');
        expect(JSON.parse(rest.at(-1)?.data ?? '{}').output).toBe(
          'tick 1\ntick 2\ntick 3\ntick 4\ntick 5',
        );
      }
    });
  });

  it('streams through B, with the official client, a task A runs', async () => {
    const { source } = configOf(DATABASE);
    await withConfigFile(source, async (file) => {
      const [a, b] = await Promise.all([start(['--config', file]), start(['--config', file])]);
      const created = await post(a.url, '/agents/ticker/tasks', { input: '6 every 100ms' });
      const { id } = created.task as Task;
      const flavour = { binding: 'JSONRPC', version: '1.0' } as const;
      const client = await officialClient(
        `${b.url}/a2a/ticker/.well-known/agent-card.json`,
        flavour,
      );
      const events: StreamResponse[] = await collect(client.resubscribeTask({ tenant: '', id }));
      const last = events.at(-1)?.payload;
      expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(
        TaskState.TASK_STATE_COMPLETED,
      );
      const got = await client.getTask({ tenant: '', id, historyLength: undefined });
      expect(outputOf(got)).toBe('tick 1\ntick 2\ntick 3\ntick 4\ntick 5\ntick 6');
      const sent = await client.sendMessage(
        SendMessageRequest.fromJSON({
          message: {
            messageId: randomUUID(),
            role: 'ROLE_USER',
            parts: [{ text: '2 every 10ms' }],
          },
        }),
      );
      expect(
        (await get(a.url, `/agents/ticker/tasks/${(sent as { id: string }).id}?wait=5`)).task
          .status,
      ).toBe('completed');
      // CancelTask through B of a task A runs: A's agent stops.
      const long = await post(a.url, '/agents/ticker/tasks', { input: '1000 every 50ms' });
      await eventually(
        () => get(b.url, `/agents/ticker/tasks/${long.task.id}`),
        (answer) => (answer.task.output ?? '') !== '',
      );
      const canceled = await client.cancelTask({
        tenant: '',
        id: long.task.id,
        metadata: undefined,
      });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      const after = (await get(a.url, `/agents/ticker/tasks/${long.task.id}`)).task.output;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await get(a.url, `/agents/ticker/tasks/${long.task.id}`)).task.output).toBe(after);
    });
  });

  it('continues a paused conversation through each of three replicas, and keeps it across restarts', async () => {
    const { source } = configOf(DATABASE);
    await withConfigFile(source, async (file) => {
      const [a, b, c] = await Promise.all([
        start(['--config', file]),
        start(['--config', file]),
        start(['--config', file]),
      ]);
      const first = await post(a.url, '/agents/booking/invoke', { input: 'A table please' });
      expect(first).toMatchObject({ status: 'input-required', result: 'For how many people?' });
      const second = await post(b.url, '/agents/booking/invoke', {
        input: '3',
        contextId: first.contextId,
      });
      expect(second).toMatchObject({ status: 'input-required', result: 'What time? (HH:MM)' });
      const third = await post(c.url, '/compat/runs', {
        agent_name: 'booking',
        input: '19:00',
        conversation_id: first.contextId,
      });
      expect(third.output).toBe('Booked a table for 3 at 19:00.');
      await Promise.all([a.stop(), b.stop(), c.stop()]);
      const restarted = await start(['--config', file]);
      const task = await get(restarted.url, `/agents/booking/tasks/${first.taskId}`);
      expect(task.task).toMatchObject({
        status: 'completed',
        output: 'Booked a table for 3 at 19:00.',
      });
    });
  });
});

describe('a queue spread over replicas', () => {
  it('leaves the tasks of a replica at its limit to another with free slots', async () => {
    const { source } = configOf(DATABASE, undefined, { maxConcurrency: 2 });
    await withConfigFile(source, async (file) => {
      const [a, b] = await Promise.all([start(['--config', file]), start(['--config', file])]);
      const ids: string[] = [];
      for (let index = 0; index < 4; index += 1) {
        ids.push((await post(a.url, '/agents/ticker/tasks', { input: '1000 every 50ms' })).task.id);
      }
      // A runs two at once; the other two start only because B takes them.
      const statuses = () =>
        Promise.all(
          ids.map(async (id) => (await get(b.url, `/agents/ticker/tasks/${id}`)).task.status),
        );
      const all = await eventually(statuses, (seen) =>
        seen.every((status) => status === 'working'),
      );
      expect(all).toEqual(['working', 'working', 'working', 'working']);
      for (const id of ids) await post(b.url, `/agents/ticker/tasks/${id}/cancel`);
      expect(await statuses()).toEqual(['canceled', 'canceled', 'canceled', 'canceled']);
    });
  });
});

describe('a replica killed while it runs a task', () => {
  it('leaves the task to end failed worker_lost once its lease runs out, seen through B', async () => {
    const { source } = configOf(DATABASE, 1_000);
    await withConfigFile(source, async (file) => {
      const [a, b] = await Promise.all([start(['--config', file]), start(['--config', file])]);
      const created = await post(a.url, '/agents/ticker/tasks', { input: '1000 every 50ms' });
      const { id } = created.task as Task;
      let killedAt = 0;
      const events = await readEvents(
        await fetch(`${b.url}/agents/ticker/tasks/${id}/events?lastEventId=0`),
        (event) => {
          if (event.event === 'text-delta' && killedAt === 0) {
            killedAt = Date.now();
            a.child.kill('SIGKILL');
          }
        },
      );
      const end = JSON.parse(events.at(-1)?.data ?? '{}');
      expect(end).toMatchObject({ status: 'failed', error: { code: 'worker_lost' } });
      // Within a lease and a sweep of the kill, give or take a renewal.
      expect(Date.now() - killedAt).toBeLessThan(5_000);
      const read = await get(b.url, `/agents/ticker/tasks/${id}`);
      expect(read.task).toMatchObject({ status: 'failed', error: { code: 'worker_lost' } });
    });
  });
});

describe('a retry-safe agent whose replica is killed', () => {
  it('has its task run again by another replica, which ends it', async () => {
    const schema = `replicas_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    schemas.push(schema);
    const config = fileURLToPath(new URL('./fixtures/retry-safe.config.ts', import.meta.url));
    const env = { RETRY_DATABASE_URL: DATABASE.href, RETRY_SCHEMA: schema };
    const a = await start(['--config', config], { ...env, RETRY_ROLE: 'hang' });
    const b = await start(['--config', config], { ...env, RETRY_ROLE: 'finish' });
    const created = await post(a.url, '/agents/retrier/tasks', { input: 'it' });
    const { id } = created.task as Task;
    const half = await eventually(
      () => get(b.url, `/agents/retrier/tasks/${id}`),
      (answer) => answer.task.output === 'half',
    );
    // A runs it (a replica runs the tasks it was asked for while it has room).
    expect(half.task).toMatchObject({ status: 'working', output: 'half' });
    a.child.kill('SIGKILL');
    const done = await eventually(
      () => get(b.url, `/agents/retrier/tasks/${id}`),
      (answer) => answer.task.status === 'completed',
    );
    expect(done.task).toMatchObject({ status: 'completed', output: 'all of it' });
  });
});

/** A TCP proxy to the database that can be taken down (every connection cut, none accepted). */
async function databaseProxy(
  target: URL,
): Promise<{ url: URL; down(): Promise<void>; up(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const up = async () => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server?.listen(port, '127.0.0.1', resolve));
    const address = server.address();
    port = typeof address === 'object' && address !== null ? address.port : 0;
  };
  await up();
  const url = new URL(target.href);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url,
    up,
    async down() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server?.close(resolve));
    },
  };
}

describe('a database outage', () => {
  it('answers 503 store_unavailable while the database is away, and recovers by itself', async () => {
    const proxy = await databaseProxy(DATABASE);
    const { source } = configOf(proxy.url);
    try {
      await withConfigFile(source, async (file) => {
        const gateway = await start(['--config', file]);
        expect((await get(gateway.url, '/readyz')).http).toBe(200);
        await proxy.down();
        const ready = await get(gateway.url, '/readyz');
        expect(ready).toMatchObject({ http: 503, error: { code: 'store_unavailable' } });
        const create = await post(gateway.url, '/agents/echo/tasks', { input: 'x' });
        expect(create).toMatchObject({ http: 503, error: { code: 'store_unavailable' } });
        const invoke = await post(gateway.url, '/agents/echo/invoke', { input: 'x' });
        expect(invoke).toMatchObject({ http: 503, error: { code: 'store_unavailable' } });
        await proxy.up();
        const back = await eventually(
          () => get(gateway.url, '/readyz'),
          (answer) => answer.http === 200,
        );
        expect(back.http).toBe(200);
        const created = await post(gateway.url, '/agents/echo/tasks?wait=5', { input: 'again' });
        expect(created.task).toMatchObject({ status: 'completed', output: 'again' });
        expect(gateway.child.exitCode).toBeNull();
      });
    } finally {
      await proxy.down().catch(() => undefined);
    }
  });
});
