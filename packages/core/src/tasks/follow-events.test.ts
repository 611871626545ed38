import { describe, expect, it } from 'vitest';
import { followTaskEvents } from './follow-events.ts';
import { createMemoryTaskStore } from './memory-task-store.ts';
import type { TaskLogEntry } from './task-event.ts';
import type { TaskStore } from './task-store.ts';

/** A store whose change feed carries no events, as one relaying another process's changes may. */
function withBareFeed(store: TaskStore): TaskStore {
  return {
    ...store,
    subscribe: (listener) => store.subscribe((task) => listener(task, [])),
  };
}

async function started(store: TaskStore, id: string): Promise<void> {
  await store.create({ id, agentName: 'echo', input: 'x', metadata: {} });
  await store.update(id, { status: 'working' }, { expectedStatus: 'submitted' });
}

describe('followTaskEvents', () => {
  it('reads from the store what a change feed without events did not carry', async () => {
    const store = withBareFeed(createMemoryTaskStore());
    await started(store, 't1');
    const seen: TaskLogEntry[] = [];
    const following = (async () => {
      for await (const entry of followTaskEvents(store, 't1')) seen.push(entry);
    })();
    await new Promise((resolve) => setTimeout(resolve, 1));
    await store.append('t1', [{ type: 'text-delta', delta: 'a' }]);
    await new Promise((resolve) => setTimeout(resolve, 1));
    await store.update(
      't1',
      { status: 'completed', progress: [{ type: 'text-delta', delta: 'b' }] },
      { expectedStatus: 'working' },
    );
    await following;
    expect(seen.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(seen.at(-1)?.event).toMatchObject({ type: 'status-update', status: 'completed' });
  });

  it('keeps a bounded queue for a slow consumer, and catches up from the store', async () => {
    const store = createMemoryTaskStore();
    await started(store, 't1');
    const iterator = followTaskEvents(store, 't1', { after: 2 })[Symbol.asyncIterator]();
    const first = iterator.next();
    // 3,000 events while the consumer takes none: more than a follower queues.
    for (let index = 0; index < 3; index += 1) {
      const deltas = Array.from({ length: 1_000 }, (_, at) => ({
        type: 'text-delta' as const,
        delta: `${index * 1_000 + at} `,
      }));
      await store.append('t1', deltas);
    }
    await store.update('t1', { status: 'completed' }, { expectedStatus: 'working' });
    const seqs = [(await first).value?.seq];
    for (let step = await iterator.next(); step.done !== true; step = await iterator.next()) {
      seqs.push(step.value.seq);
    }
    expect(seqs).toEqual(Array.from({ length: 3_001 }, (_, index) => index + 3));
  });

  it('tells a follower that fell behind what retention dropped, never skipping it', async () => {
    const store = createMemoryTaskStore({ maxEventsPerTask: 100 });
    await started(store, 't1');
    const iterator = followTaskEvents(store, 't1', { after: 2 })[Symbol.asyncIterator]();
    const first = iterator.next();
    await new Promise((resolve) => setTimeout(resolve, 1));
    // More than a follower queues, while it waits: it drops them, and the store keeps 100.
    const deltas = Array.from({ length: 1_100 }, () => ({
      type: 'text-delta' as const,
      delta: 'x',
    }));
    await store.append('t1', deltas);
    await expect(first).rejects.toMatchObject({ code: 'events_expired', earliestAfter: 1_002 });
  });

  it("starts from the caller's task instead of reading it, unless that one is finished or paused", async () => {
    const store = createMemoryTaskStore();
    let reads = 0;
    const counted: TaskStore = {
      ...store,
      get: (id) => {
        reads += 1;
        return store.get(id);
      },
    };
    const created = await store.create({ id: 't1', agentName: 'echo', input: 'x', metadata: {} });
    const seen: string[] = [];
    const following = (async () => {
      for await (const { event } of followTaskEvents(counted, 't1', { task: created })) {
        seen.push(event.type === 'status-update' ? event.status : event.type);
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 1));
    await store.update('t1', { status: 'working' }, { expectedStatus: 'submitted' });
    await store.update('t1', { status: 'completed', output: 'x' }, { expectedStatus: 'working' });
    await following;
    expect(seen).toEqual(['submitted', 'working', 'completed']);
    expect(reads).toBe(0);
    // A finished task handed in is read: the store, not the caller's copy, ends the follow.
    const done = await store.get('t1');
    for await (const _ of followTaskEvents(counted, 't1', { task: done, after: done?.seq })) {
      // Nothing after its end.
    }
    expect(reads).toBe(1);
  });
});
