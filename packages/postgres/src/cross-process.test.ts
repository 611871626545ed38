import { createTaskRunner, defineAgent, type Task, type TaskEvent } from '@agentport/core';
import { Client } from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { DATABASE_URL, randomSchema, useStores } from './test-support/database.ts';

const makeStores = useStores();

/** Two replicas' stores on one schema. */
async function twoReplicas() {
  const schema = randomSchema();
  const a = await makeStores({ schema });
  const b = await makeStores({ schema });
  return { schema, a, b };
}

/** Subscribes to a store and waits until its feed listens. */
async function listen(stores: Awaited<ReturnType<typeof makeStores>>) {
  const heard: Array<[Task, TaskEvent[]]> = [];
  stores.tasks.subscribe((task, events) => heard.push([task, [...events]]));
  await vi.waitFor(async () => expect(await stores.ready()).toBe(true));
  return heard;
}

const newTask = (id: string) => ({ id, agentName: 'echo', input: 'hi', metadata: {} });

describe('two stores on one schema', () => {
  it("hears the other's changes through the database, as the task then with the events since", async () => {
    const { a, b } = await twoReplicas();
    const heardByA = await listen(a);
    await b.tasks.create(newTask('t1'));
    const working = await b.tasks.update(
      't1',
      { status: 'working' },
      { expectedStatus: 'submitted' },
    );
    await vi.waitFor(() => expect(heardByA.at(-1)?.[0]).toEqual(working));
    // Each change heard comes with the events up to its seq that the one before did not: all
    // of them together are the log, in order, once.
    const heard = heardByA.flatMap(([task, events]) =>
      events.map((event, index) => ({ seq: task.seq - events.length + 1 + index, event })),
    );
    expect(heard).toEqual(await a.tasks.events('t1'));
  });

  it('hears its own steps once, with their events, and not again from the database', async () => {
    const { a, b } = await twoReplicas();
    const heardByA = await listen(a);
    await listen(b);
    await a.tasks.create(newTask('mine'));
    await b.tasks.create(newTask('theirs'));
    await vi.waitFor(() => expect(heardByA).toHaveLength(2));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Its own create heard at once with its event, the other's relayed (with its event too).
    expect(heardByA.map(([task, events]) => [task.id, events.length])).toEqual([
      ['mine', 1],
      ['theirs', 1],
    ]);
  });

  it('notifies ids only: the task id and its seq, with the writing store named', async () => {
    const { schema, b } = await twoReplicas();
    const client = new Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      const payloads: string[] = [];
      client.on('notification', (message) => payloads.push(message.payload ?? ''));
      await client.query(`LISTEN "${schema}_tasks"`);
      await b.tasks.create({ ...newTask('t1'), input: 'a secret input' });
      await b.tasks.append('t1', [{ type: 'text-delta', delta: 'a secret delta' }]);
      await vi.waitFor(() => expect(payloads).toHaveLength(2));
      expect(payloads).toEqual([
        expect.stringMatching(/^[0-9a-f-]{36} 1 t1$/),
        expect.stringMatching(/^[0-9a-f-]{36} 2 t1$/),
      ]);
    } finally {
      await client.end();
    }
  });

  /** The pids of the backends of a schema's LISTEN connections. */
  const listenerPids = async (stores: Awaited<ReturnType<typeof makeStores>>, schema: string) => {
    const { rows } = await stores.pool.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
      [`agentport listen ${schema}`],
    );
    return rows.map((row) => row.pid);
  };

  it('listens again by itself after its connection is dropped, and hears changes then', async () => {
    const { schema, a, b } = await twoReplicas();
    const heardByA = await listen(a);
    const [before] = await listenerPids(b, schema);
    expect(before).toBeDefined();
    await b.pool.query('SELECT pg_terminate_backend($1)', [before]);
    await vi.waitFor(
      async () => {
        const after = await listenerPids(b, schema);
        expect(after).toHaveLength(1);
        expect(after).not.toContain(before);
        expect(await a.ready()).toBe(true);
      },
      { timeout: 5_000 },
    );
    await b.tasks.create(newTask('after-the-drop'));
    await vi.waitFor(() => expect(heardByA.map(([task]) => task.id)).toContain('after-the-drop'));
  });

  it('catches up with the changes made while its connection was down once it listens again', async () => {
    const { schema, a, b } = await twoReplicas();
    await b.tasks.create(newTask('t1'));
    const heardByA = await listen(a);
    const [before] = await listenerPids(b, schema);
    await b.pool.query('SELECT pg_terminate_backend($1)', [before]);
    // Made while A listens on no connection: its notification reaches no one.
    await b.tasks.update('t1', { status: 'canceled' }, { expectedStatus: 'submitted' });
    await vi.waitFor(() => expect(heardByA.map(([task]) => task.status)).toContain('canceled'), {
      timeout: 5_000,
    });
  });

  it('aborts the agent a runner on A runs when a runner on B cancels its task', async () => {
    const { a, b } = await twoReplicas();
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let aborted!: () => void;
    const abortedRun = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    const agent = defineAgent({
      name: 'waiter',
      async *run(_input, context) {
        started();
        await new Promise<void>((resolve) => {
          context.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        aborted();
        yield { type: 'text-delta', delta: 'stopped' };
        return 'never kept';
      },
    });
    const runnerA = createTaskRunner({ agent, store: a.tasks, conversations: a.conversations });
    const runnerB = createTaskRunner({ agent, store: b.tasks, conversations: b.conversations });
    try {
      await vi.waitFor(async () => expect(await a.ready()).toBe(true));
      const task = await runnerA.submit('wait for it');
      await running;
      await expect(runnerB.cancel(task.id)).resolves.toMatchObject({ status: 'canceled' });
      await abortedRun;
      await expect(runnerA.get(task.id)).resolves.toMatchObject({ status: 'canceled' });
    } finally {
      await runnerA.close();
      await runnerB.close();
    }
  });
});
