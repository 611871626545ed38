import { createTaskRunner, defineAgent } from '@agentport/core';
import { describe, expect, it, vi } from 'vitest';
import { randomSchema, useStores } from './test-support/database.ts';

const makeStores = useStores();

const newTask = (id: string) => ({ id, agentName: 'echo', input: 'hi', metadata: {} });

describe('leases on working tasks', () => {
  it('ends worker_lost a task whose replica stopped renewing its lease, and only then', async () => {
    const schema = randomSchema();
    const a = await makeStores({ schema, leaseMs: 300 });
    const b = await makeStores({ schema, leaseMs: 300 });
    await a.tasks.create(newTask('alive'));
    await a.tasks.update('alive', { status: 'working' }, { expectedStatus: 'submitted' });
    await a.tasks.create(newTask('orphan'));
    await a.tasks.update('orphan', { status: 'working' }, { expectedStatus: 'submitted' });
    // Its replica renews the lease of a task it runs: a sweep well past one lease finds none.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await b.tasks.sweepLostTasks()).toEqual([]);
    // A replica that dies renews nothing: here, its lease on 'orphan' is taken as stopped.
    await a.pool.query(`UPDATE "${schema}".tasks SET lease_owner = 'dead' WHERE id = 'orphan'`);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await b.tasks.sweepLostTasks()).toEqual(['orphan']);
    expect(await b.tasks.get('orphan')).toMatchObject({
      status: 'failed',
      error: { code: 'worker_lost' },
    });
    expect((await b.tasks.get('alive'))?.status).toBe('working');
    // A task that ends or pauses is leased by no one.
    await a.tasks.update(
      'alive',
      { status: 'completed', output: 'x' },
      { expectedStatus: 'working' },
    );
    const { rows } = await a.pool.query(
      `SELECT lease_owner FROM "${schema}".tasks WHERE id = 'alive'`,
    );
    expect(rows[0].lease_owner).toBeNull();
  });

  it("ends worker_lost, through another replica's sweep, the task of a runner whose process is gone", async () => {
    const schema = randomSchema();
    const a = await makeStores({ schema, leaseMs: 300 });
    const b = await makeStores({ schema, leaseMs: 300 });
    const agent = defineAgent({
      name: 'echo',
      async *run(_input, context) {
        yield { type: 'text-delta', delta: 'started' };
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
      },
    });
    const runner = createTaskRunner({ agent, store: a.tasks, conversations: a.conversations });
    const task = await runner.submit('go');
    await vi.waitFor(async () => expect((await b.tasks.get(task.id))?.output).toBe('started'));
    // The process stops: its store renews nothing more (its runner is left as a dead one is).
    await a.tasks.close();
    const retention = b.startRetention({ sweepIntervalMs: 100 });
    await vi.waitFor(
      async () => expect((await b.tasks.get(task.id))?.error?.code).toBe('worker_lost'),
      { timeout: 3_000 },
    );
    retention.stop();
    await runner.close();
  });
});

describe('a retry-safe agent', () => {
  it('has a task lost with its replica run again from the start by another, not ended', async () => {
    const schema = randomSchema();
    const a = await makeStores({ schema, leaseMs: 300 });
    const b = await makeStores({ schema, leaseMs: 300 });
    let runs = 0;
    const agent = defineAgent({
      name: 'echo',
      retrySafe: true,
      async *run(input, context) {
        runs += 1;
        if (runs === 1) {
          yield { type: 'text-delta', delta: 'half' };
          await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
          return;
        }
        yield { type: 'text-delta', delta: `all of ${input}` };
      },
    });
    const first = createTaskRunner({ agent, store: a.tasks, conversations: a.conversations });
    const task = await first.submit('it');
    await vi.waitFor(async () => expect((await b.tasks.get(task.id))?.output).toBe('half'));
    await a.tasks.close();
    // Every replica's sweep leaves it to the runners of its agent.
    const retention = b.startRetention({ sweepIntervalMs: 50, retried: ['echo'] });
    const second = createTaskRunner({
      agent,
      store: b.tasks,
      conversations: b.conversations,
      claimTasks: true,
      claimIntervalMs: 50,
    });
    await vi.waitFor(
      async () => expect(await b.tasks.get(task.id)).toMatchObject({ status: 'completed' }),
      { timeout: 3_000 },
    );
    expect((await b.tasks.get(task.id))?.output).toBe('all of it');
    expect(runs).toBe(2);
    retention.stop();
    await Promise.all([first.close(), second.close()]);
  });
});

describe('claims of submitted tasks', () => {
  it('gives each old enough submitted task to one claimer at a time, newest first, until its claim runs out', async () => {
    const schema = randomSchema();
    const a = await makeStores({ schema, leaseMs: 300 });
    const b = await makeStores({ schema, leaseMs: 300 });
    for (const id of ['first', 'second', 'third']) await a.tasks.create(newTask(id));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const cutoff = new Date();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await a.tasks.create(newTask('new'));
    // Claimers polling at once skip each other's rows: no task is handed out twice.
    const [fromA, fromB] = await Promise.all([
      a.tasks.claimSubmitted('echo', 2, cutoff),
      b.tasks.claimSubmitted('echo', 2, cutoff),
    ]);
    expect([...fromA, ...fromB].sort()).toEqual(['first', 'second', 'third']);
    expect(await a.tasks.claimSubmitted('echo', 3, cutoff)).toEqual([]);
    // Tasks newer than the cutoff ('new'), or of another agent, are not claimed.
    expect(await b.tasks.claimSubmitted('other', 3, new Date())).toEqual([]);
    // A claim that ran out (its replica never started the task) is taken again.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await b.tasks.claimSubmitted('echo', 2, cutoff)).toEqual(['third', 'second']);
    expect((await a.tasks.get('third'))?.status).toBe('submitted');
  });

  it('lets a claiming runner run, through its claims, a task another replica queued', async () => {
    const schema = randomSchema();
    const a = await makeStores({ schema });
    const b = await makeStores({ schema });
    const agent = defineAgent({
      name: 'echo',
      async *run(input) {
        yield { type: 'text-delta', delta: `ran ${input}` };
      },
    });
    await a.tasks.create(newTask('queued'));
    const runner = createTaskRunner({
      agent,
      store: b.tasks,
      conversations: b.conversations,
      claimTasks: true,
      claimIntervalMs: 200,
    });
    await vi.waitFor(async () => expect((await a.tasks.get('queued'))?.status).toBe('completed'));
    expect((await a.tasks.get('queued'))?.output).toBe('ran hi');
    await runner.close();
  });
});
