import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { sleep } from '../abortable.ts';
import type { Agent } from '../agent.ts';
import { createEchoAgent } from '../agents/echo.ts';
import { defineAgent } from '../define-agent.ts';
import { createNumericAgent } from '../testing/numeric-agent.ts';
import { createMemoryTaskStore } from './memory-task-store.ts';
import type { Task } from './task.ts';
import { createTaskRunner } from './task-runner.ts';
import type { TaskStore } from './task-store.ts';

/** An agent that waits until released, and records whether its signal was aborted. */
function gatedAgent(name = 'gated', options: { ignoreSignal?: boolean } = {}) {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state = { started: 0, aborted: false, finished: false };
  const agent = defineAgent({
    name,
    async *run(input, { signal }) {
      state.started += 1;
      signal.addEventListener('abort', () => {
        state.aborted = true;
      });
      yield { type: 'text-delta', delta: 'working on it' };
      await (options.ignoreSignal ? gate : Promise.race([gate, sleep(60_000, signal)]));
      state.finished = true;
      return `late ${input}`;
    },
  });
  return { agent, state, release: () => release() };
}

describe('createTaskRunner', () => {
  it('creates a task working when asked to and a slot is free, submitted and queued when none is', async () => {
    const gated = gatedAgent();
    const runner = createTaskRunner({ agent: gated.agent, maxConcurrency: 1 });
    const statuses: string[] = [];
    runner.store.subscribe((task) => {
      const seen = `${task.input} ${task.status}`;
      if (statuses.at(-1) !== seen) statuses.push(seen);
    });
    const first = await runner.submit('a', { metadata: { requestId: 'r1' }, startWorking: true });
    // Created started, in one step: its log still says submitted, then working.
    expect(first).toMatchObject({ status: 'working', agentName: gated.agent.name, input: 'a' });
    const logged = (await runner.events(first.id)).map(({ event }) => event);
    expect(logged).toMatchObject([
      { type: 'status-update', status: 'submitted' },
      { type: 'status-update', status: 'working' },
    ]);
    const second = await runner.submit('b', { startWorking: true });
    expect(second.status).toBe('submitted');
    gated.release();
    expect(await runner.wait(first.id)).toMatchObject({
      status: 'completed',
      metadata: { requestId: 'r1' },
    });
    await runner.wait(second.id);
    // The second starts once the first's agent is done (as the first's end is written).
    expect(statuses.slice(0, 2)).toEqual(['a working', 'b submitted']);
    expect(statuses.filter((seen) => seen.startsWith('a'))).toEqual(['a working', 'a completed']);
    expect(statuses.filter((seen) => seen.startsWith('b'))).toEqual([
      'b submitted',
      'b working',
      'b completed',
    ]);
    // A create that fails gives its slot back: the next task still starts at once.
    await expect(runner.submit('again', { id: first.id })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    expect((await runner.submit('c', { startWorking: true })).status).toBe('working');
    // Not asked to, it is created submitted, and started by a step of its own.
    const plain = createTaskRunner({ agent: createEchoAgent() });
    const queued = await plain.submit('d');
    expect(queued.status).toBe('submitted');
    expect(await plain.wait(queued.id)).toMatchObject({ status: 'completed', output: 'd' });
  });

  it('runs an agent whose stream is not a defineAgent one, and cancels it though it never ends', async () => {
    let stuck = false;
    const plain: Agent = {
      name: 'plain',
      tools: [],
      handoffs: [],
      invoke: () => Promise.reject(new Error('not used')),
      async *stream(input) {
        if (input === 'stuck') {
          stuck = true;
          await new Promise<never>(() => undefined);
        }
        yield { type: 'text-delta', delta: `${input} ` };
        if (input === 'unfinished') return;
        yield { type: 'done', output: `${input}!` };
      },
    };
    const runner = createTaskRunner({ agent: plain });
    const done = await runner.wait((await runner.submit('hi')).id);
    expect(done).toMatchObject({ status: 'completed', output: 'hi!' });
    await expect(runner.submitAndWait('unfinished')).resolves.toMatchObject({
      status: 'failed',
      output: 'unfinished ',
      error: { code: 'agent_failure', message: "Agent 'plain' ended without a result" },
    });
    const task = await runner.submit('stuck');
    await sleep(10);
    expect(stuck).toBe(true);
    expect((await runner.cancel(task.id)).status).toBe('canceled');
    expect(await runner.wait(task.id)).toMatchObject({ status: 'canceled' });
  });

  it('submits and waits in one call: the terminal task, or as it is when the wait runs out', async () => {
    const runner = createTaskRunner({ agent: createEchoAgent() });
    const statuses: string[] = [];
    runner.store.subscribe((task) => statuses.push(task.status));
    const done = await runner.submitAndWait('hello world', { metadata: { requestId: 'r2' } });
    expect(done).toMatchObject({ status: 'completed', output: 'hello world' });
    expect(done.metadata).toEqual({ requestId: 'r2' });
    expect(statuses).toEqual(['working', 'completed']);
    await expect(runner.submitAndWait('')).rejects.toMatchObject({ code: 'invalid_input' });

    const gated = gatedAgent();
    const slow = createTaskRunner({ agent: gated.agent });
    const waited = await slow.submitAndWait('x', { timeoutMs: 30 });
    expect(waited.status).toBe('working');
    gated.release();
    await expect(slow.wait(waited.id)).resolves.toMatchObject({ status: 'completed' });
  });

  it('cancels the task it waits for when its signal aborts, and aborts the agent', async () => {
    const gated = gatedAgent();
    const runner = createTaskRunner({ agent: gated.agent });
    const controller = new AbortController();
    const waited = runner.submitAndWait('x', { signal: controller.signal });
    await sleep(10);
    controller.abort();
    const task = await waited;
    expect(task.status).toBe('canceled');
    expect((await runner.get(task.id)).status).toBe('canceled');
    await sleep(5);
    expect(gated.state.aborted).toBe(true);
    // Aborted while the task is being created: canceled all the same.
    const store = createMemoryTaskStore();
    const during = new AbortController();
    const racing = createTaskRunner({
      agent: gatedAgent().agent,
      store: {
        ...store,
        create: (task) => {
          during.abort();
          return store.create(task);
        },
      },
    });
    const raced = await racing.submitAndWait('z', { signal: during.signal, timeoutMs: 60_000 });
    expect(raced.status).toBe('canceled');
    const already = new AbortController();
    already.abort(new Error('gone'));
    await expect(runner.submitAndWait('y', { signal: already.signal })).rejects.toThrow('gone');
    expect((await runner.list()).tasks).toHaveLength(1);
  });

  it("hands the agent its own copy of the task's metadata, empty or not", async () => {
    const seen: Record<string, unknown>[] = [];
    const agent = defineAgent({
      name: 'curious',
      async *run(_input, { metadata }) {
        // The run's copy is its own to change; the stored task is not affected.
        metadata.touched = true;
        seen.push({ ...metadata });
        yield { type: 'text-delta', delta: 'seen' };
      },
    });
    const runner = createTaskRunner({ agent });
    const tagged = await runner.submitAndWait('x', { metadata: { requestId: 'r3' } });
    const bare = await runner.submitAndWait('y');
    expect(seen).toEqual([{ requestId: 'r3', touched: true }, { touched: true }]);
    expect(tagged.metadata).toEqual({ requestId: 'r3' });
    expect(bare.metadata).toEqual({});
  });

  it('names a task with the id it is submitted with, and refuses an id the store holds', async () => {
    const runner = createTaskRunner({ agent: createEchoAgent() });
    const task = await runner.submit('hi', { id: 'task-1' });
    expect(task.id).toBe('task-1');
    expect((await runner.wait('task-1')).output).toBe('hi');
    await expect(runner.submit('again', { id: 'task-1' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });

  it('refuses empty input', async () => {
    const runner = createTaskRunner({ agent: createEchoAgent() });
    await expect(runner.submit('')).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('fails a task whose hand-written agent ends with a non-string output, and keeps the store whole', async () => {
    const numeric = createNumericAgent();
    const store = createMemoryTaskStore();
    const echo = createTaskRunner({ agent: createEchoAgent(), store });
    const runner = createTaskRunner({ agent: numeric, store });
    const kept = await echo.submitAndWait('kept', { timeoutMs: 1_000 });
    expect(await runner.submitAndWait('x', { timeoutMs: 1_000 })).toMatchObject({
      status: 'failed',
      error: { code: 'agent_failure', message: "Agent 'numeric' failed" },
    });
    // The store's byte count stays a number: nothing else is evicted.
    expect((await echo.list()).tasks.map((task) => task.id)).toEqual([kept.id]);
    expect(await echo.get(kept.id)).toMatchObject({ status: 'completed', output: 'kept' });
  });

  it('fails a task whose agent throws, with a safe message', async () => {
    const agent = defineAgent({
      name: 'broken',
      async *run(input) {
        if (input === 'x') throw new Error('secret connection string');
        yield { type: 'text-delta', delta: input };
      },
    });
    const runner = createTaskRunner({ agent });
    const task = await runner.submit('x');
    const done = await runner.wait(task.id);
    expect(done.status).toBe('failed');
    expect(done.error).toEqual({ code: 'agent_failure', message: "Agent 'broken' failed" });
    expect(JSON.stringify(done)).not.toContain('secret');
  });

  it.each<[string, Agent]>([
    [
      'a hand-written stream that throws when called',
      {
        name: 'thrower',
        tools: [],
        handoffs: [],
        invoke: () => Promise.reject(new Error('not used')),
        stream: () => {
          throw new Error('secret on call');
        },
      },
    ],
    [
      "a hand-written stream whose iterator's next throws",
      {
        name: 'thrower',
        tools: [],
        handoffs: [],
        invoke: () => Promise.reject(new Error('not used')),
        stream: () => ({
          [Symbol.asyncIterator]: () => ({
            next: () => {
              throw new Error('secret on next');
            },
          }),
        }),
      },
    ],
    [
      "a hand-written stream whose iterator's next rejects",
      {
        name: 'thrower',
        tools: [],
        handoffs: [],
        invoke: () => Promise.reject(new Error('not used')),
        stream: () => ({
          [Symbol.asyncIterator]: () => ({
            next: () => Promise.reject(new Error('secret on next')),
          }),
        }),
      },
    ],
    [
      'a defineAgent run that throws when called',
      defineAgent({
        name: 'thrower',
        run: () => {
          throw new Error('secret on call');
        },
      }),
    ],
  ])('fails a task of %s with agent_failure, as every surface does', async (_, agent) => {
    const runner = createTaskRunner({ agent });
    const done = await runner.submitAndWait('x', { timeoutMs: 1_000 });
    expect(done).toMatchObject({
      status: 'failed',
      error: { code: 'agent_failure', message: "Agent 'thrower' failed" },
    });
    expect(JSON.stringify(done)).not.toContain('secret');
  });

  it('cancels a task before it starts: it never runs', async () => {
    const blocker = gatedAgent();
    const runner = createTaskRunner({ agent: blocker.agent, maxConcurrency: 1 });
    const first = await runner.submit('one');
    const second = await runner.submit('two');
    await sleep(10);
    expect((await runner.get(second.id)).status).toBe('submitted');
    const canceled = await runner.cancel(second.id);
    expect(canceled.status).toBe('canceled');
    blocker.release();
    await runner.wait(first.id);
    await sleep(10);
    expect(blocker.state.started).toBe(1);
    expect((await runner.get(second.id)).status).toBe('canceled');
  });

  it('cancels a running task whose agent ignores its signal and discards its late result', async () => {
    const stubborn = gatedAgent('stubborn', { ignoreSignal: true });
    const runner = createTaskRunner({ agent: stubborn.agent });
    const task = await runner.submit('x');
    await sleep(10);
    expect((await runner.get(task.id)).status).toBe('working');
    const canceled = await runner.cancel(task.id);
    expect(canceled.status).toBe('canceled');
    expect(stubborn.state.aborted).toBe(true);
    stubborn.release();
    await sleep(20);
    const after = await runner.get(task.id);
    expect(after.status).toBe('canceled');
    expect(after.output).toBe('working on it');
  });

  it('aborts the agent signal when a running task is canceled', async () => {
    const gated = gatedAgent();
    const runner = createTaskRunner({ agent: gated.agent });
    const task = await runner.submit('x');
    await sleep(10);
    await runner.cancel(task.id);
    await sleep(10);
    expect(gated.state.aborted).toBe(true);
    expect(gated.state.finished).toBe(false);
  });

  it('answers the canceled task unchanged when canceled twice', async () => {
    const gated = gatedAgent();
    const runner = createTaskRunner({ agent: gated.agent });
    const task = await runner.submit('x');
    const first = await runner.cancel(task.id);
    const second = await runner.cancel(task.id);
    expect(second).toEqual(first);
  });

  it('raises a conflict instead of rewriting a finished task', async () => {
    const runner = createTaskRunner({ agent: createEchoAgent() });
    const task = await runner.submit('x');
    await runner.wait(task.id);
    await expect(runner.cancel(task.id)).rejects.toMatchObject({
      code: 'task_not_cancelable',
      status: 409,
    });
    expect((await runner.get(task.id)).status).toBe('completed');
  });

  it('runs at most maxConcurrency tasks at once; the rest wait in submitted', async () => {
    let running = 0;
    let peak = 0;
    const agent = defineAgent({
      name: 'busy',
      async *run(input) {
        yield { type: 'text-delta', delta: input };
        running += 1;
        peak = Math.max(peak, running);
        await sleep(15);
        running -= 1;
        return 'ok';
      },
    });
    const runner = createTaskRunner({ agent, maxConcurrency: 2 });
    const tasks = await Promise.all([1, 2, 3, 4, 5].map((index) => runner.submit(`t${index}`)));
    await sleep(5);
    const statuses = await Promise.all(tasks.map((task) => runner.get(task.id)));
    expect(statuses.filter((task) => task.status === 'submitted')).toHaveLength(3);
    const done = await Promise.all(tasks.map((task) => runner.wait(task.id)));
    expect(done.every((task) => task.status === 'completed')).toBe(true);
    expect(peak).toBe(2);
  });

  it('starts the next task once an agent is done, while the end of its task is written', async () => {
    const memory = createMemoryTaskStore();
    let release: () => void = () => undefined;
    const endWritten = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store: TaskStore = {
      ...memory,
      async update(id, patch, options) {
        if (patch.status === 'completed') await endWritten;
        return memory.update(id, patch, options);
      },
    };
    const runner = createTaskRunner({ agent: createEchoAgent(), store, maxConcurrency: 1 });
    const first = await runner.submit('one');
    const second = await runner.submit('two');
    // The first's end waits for the store; the second runs meanwhile, to its own end's write.
    while ((await runner.get(second.id)).status === 'submitted') await sleep(1);
    expect((await runner.get(first.id)).status).toBe('working');
    release();
    const done = await Promise.all([first, second].map((task) => runner.wait(task.id)));
    expect(done.map((task) => task.output)).toEqual(['one', 'two']);
    await runner.close();
  });

  it('frees the slot of a canceled task whose agent never stops', async () => {
    const stubborn = gatedAgent('stubborn', { ignoreSignal: true });
    const runner = createTaskRunner({ agent: stubborn.agent, maxConcurrency: 1 });
    const first = await runner.submit('one');
    const second = await runner.submit('two');
    await sleep(10);
    await runner.cancel(first.id);
    await sleep(10);
    expect((await runner.get(second.id)).status).toBe('working');
    await runner.cancel(second.id);
  });

  it('resolves wait with the task as it is when the timeout runs out', async () => {
    const gated = gatedAgent();
    const runner = createTaskRunner({ agent: gated.agent });
    const task = await runner.submit('x');
    const waited = await runner.wait(task.id, { timeoutMs: 30 });
    expect(waited.status).toBe('working');
    await runner.close();
  });

  it('rejects wait when its signal aborts', async () => {
    const gated = gatedAgent();
    const runner = createTaskRunner({ agent: gated.agent });
    const task = await runner.submit('x');
    const controller = new AbortController();
    const pending = runner.wait(task.id, { signal: controller.signal });
    controller.abort(new Error('gone'));
    await expect(pending).rejects.toThrow('gone');
    // Done waiting, aborted or not: nothing is left listening to the caller's signal.
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const caller = new AbortController();
    const echo = createTaskRunner({ agent: createEchoAgent() });
    await echo.submitAndWait('hi', { signal: caller.signal, timeoutMs: 1000 });
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    await runner.close();
  });

  it("listens to a caller's signal only while a wait outlives its first microtasks", async () => {
    // A task that ends within them: the caller's signal is never touched.
    const caller = new AbortController();
    const add = vi.spyOn(caller.signal, 'addEventListener');
    const echo = createTaskRunner({ agent: createEchoAgent() });
    const done = await echo.submitAndWait('hi', { signal: caller.signal, timeoutMs: 1000 });
    expect(done.status).toBe('completed');
    await sleep(1);
    expect(add).not.toHaveBeenCalled();
    // Aborted after the wait began but before it listened: the task is canceled all the same.
    const runner = createTaskRunner({ agent: gatedAgent().agent });
    const soon = new AbortController();
    const waited = runner.submitAndWait('x', { signal: soon.signal, timeoutMs: 60_000 });
    for (let hop = 0; hop < 10; hop += 1) await Promise.resolve();
    soon.abort();
    await expect(waited).resolves.toMatchObject({ status: 'canceled' });
    expect(getEventListeners(soon.signal, 'abort')).toHaveLength(0);
    await runner.close();
  });

  it('keeps every wait and watch of one task when one of them leaves, in any order', async () => {
    const gated = gatedAgent();
    const runner = createTaskRunner({ agent: gated.agent });
    const task = await runner.submit('x');
    const first = new AbortController();
    const third = new AbortController();
    const waits = [first, undefined, third].map((controller) =>
      runner.wait(task.id, controller === undefined ? {} : { signal: controller.signal }),
    );
    const watched: Task[] = [];
    const watching = (async () => {
      for await (const update of runner.watch(task.id)) watched.push(update);
    })();
    // The first watcher leaves, then the last: the others still hear of the end.
    first.abort(new Error('first left'));
    third.abort(new Error('third left'));
    await expect(waits[0]).rejects.toThrow('first left');
    await expect(waits[2]).rejects.toThrow('third left');
    gated.release();
    await expect(waits[1]).resolves.toMatchObject({ status: 'completed', output: 'late x' });
    await watching;
    expect(watched.at(-1)).toMatchObject({ status: 'completed' });
    // A new wait after all of them left is told of the task too.
    await expect(runner.wait(task.id)).resolves.toMatchObject({ status: 'completed' });
    await runner.close();
  });

  it('watches a task from submitted to its terminal status', async () => {
    const runner = createTaskRunner({ agent: createEchoAgent() });
    const task = await runner.submit('a b');
    const seen: Task[] = [];
    for await (const update of runner.watch(task.id)) seen.push(update);
    expect(['submitted', 'working']).toContain(seen[0]?.status);
    expect(seen.at(-1)).toMatchObject({ status: 'completed', output: 'a b' });
    const order = ['submitted', 'working', 'completed'];
    const ranks = seen.map((update) => order.indexOf(update.status));
    expect(ranks).toEqual([...ranks].sort());
    expect(seen.filter((update) => update.status === 'completed')).toHaveLength(1);
  });

  it('gives a watcher slower than the changes the newest task, not a queue of them', async () => {
    const stepper = defineAgent({
      name: 'stepper',
      async *run() {
        // Twenty outputs, each in a turn of its own: twenty progress writes.
        for (let step = 1; step <= 20; step += 1) {
          yield { type: 'text-delta', delta: `${step} ` };
          await new Promise((resolve) => setImmediate(resolve));
        }
      },
    });
    const runner = createTaskRunner({ agent: stepper });
    const task = await runner.submit('go');
    const seen: Task[] = [];
    for await (const update of runner.watch(task.id)) {
      seen.push(update);
      // Slower than the agent: its whole run goes by meanwhile.
      await sleep(30);
    }
    expect(seen.length).toBeLessThanOrEqual(3);
    expect(seen.at(-1)).toMatchObject({ status: 'completed' });
    expect(seen.at(-1)?.output?.trim().split(' ')).toHaveLength(20);
  });

  it('treats a task of another agent in a shared store as not found', async () => {
    const store = createMemoryTaskStore();
    const echo = createTaskRunner({ agent: createEchoAgent(), store });
    const other = createTaskRunner({ agent: createEchoAgent('other'), store });
    const task = await echo.submit('x');
    await expect(other.get(task.id)).rejects.toMatchObject({ code: 'task_not_found' });
    expect((await other.list()).tasks).toEqual([]);
    expect((await echo.list()).tasks.map((entry) => entry.id)).toEqual([task.id]);
  });

  it('aborts its agent when another runner on the same store cancels the task', async () => {
    const store = createMemoryTaskStore();
    const gated = gatedAgent();
    const owner = createTaskRunner({ agent: gated.agent, store });
    const elsewhere = createTaskRunner({ agent: gated.agent, store });
    const task = await owner.submit('x');
    await sleep(10);
    await elsewhere.cancel(task.id);
    await sleep(10);
    expect(gated.state.aborted).toBe(true);
    expect((await owner.get(task.id)).status).toBe('canceled');
  });

  it('cancels running and queued tasks on close', async () => {
    const gated = gatedAgent();
    const runner = createTaskRunner({ agent: gated.agent, maxConcurrency: 1 });
    const first = await runner.submit('one');
    const second = await runner.submit('two');
    await sleep(10);
    await runner.close();
    expect((await runner.get(first.id)).status).toBe('canceled');
    expect((await runner.get(second.id)).status).toBe('canceled');
    expect(gated.state.aborted).toBe(true);
  });

  it('ends waits and watches on close, also of a task another runner runs in a shared store', async () => {
    const store = createMemoryTaskStore();
    const gated = gatedAgent();
    const owner = createTaskRunner({ agent: gated.agent, store });
    const watcher = createTaskRunner({ agent: gated.agent, store });
    const task = await owner.submit('x');
    await sleep(10);
    const waited = watcher.wait(task.id);
    const watch = watcher.watch(task.id);
    const watched = (async () => {
      const seen: string[] = [];
      for await (const update of watch) seen.push(update.status);
      return seen;
    })();
    await sleep(5);
    await watcher.close();
    await expect(waited).resolves.toMatchObject({ id: task.id, status: 'working' });
    expect(await watched).toEqual(['working']);
    // Once closed, a wait answers at once and a watch yields the task as it is.
    await expect(watcher.wait(task.id, { timeoutMs: 60_000 })).resolves.toMatchObject({
      status: 'working',
    });
    const late: string[] = [];
    for await (const update of watcher.watch(task.id)) late.push(update.status);
    expect(late).toEqual(['working']);
    expect((await owner.get(task.id)).status).toBe('working');
    await owner.close();
  });

  it('lets waiters and watchers see the tasks it cancels on close', async () => {
    const gated = gatedAgent();
    const runner = createTaskRunner({ agent: gated.agent });
    const task = await runner.submit('x');
    await sleep(10);
    const waited = runner.wait(task.id);
    const watched = (async () => {
      const seen: string[] = [];
      for await (const update of runner.watch(task.id)) seen.push(update.status);
      return seen;
    })();
    await runner.close();
    await expect(waited).resolves.toMatchObject({ status: 'canceled' });
    expect((await watched).at(-1)).toBe('canceled');
  });

  it('answers task_not_found for an unknown id', async () => {
    const runner = createTaskRunner({ agent: createEchoAgent() });
    await expect(runner.get('nope')).rejects.toMatchObject({ code: 'task_not_found' });
    await expect(runner.cancel('nope')).rejects.toMatchObject({ code: 'task_not_found' });
  });
});
