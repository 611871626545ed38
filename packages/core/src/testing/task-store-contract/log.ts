import { describe, expect, it } from 'vitest';
import type { Message } from '../../message.ts';
import { followTaskEvents } from '../../tasks/follow-events.ts';
import type { TaskLogEntry } from '../../tasks/task-event.ts';
import {
  CONTRACT_MAX_EVENTS,
  collect,
  contractStore,
  expectSeqsFrom,
  finish,
  fold,
  foldedFields,
  newTask,
  type TaskStoreFactory,
  typesOf,
} from './support.ts';

const question: Message = {
  messageId: 'q1',
  role: 'agent',
  parts: [{ kind: 'text', text: 'Which city?' }],
};
const answer: Message = { messageId: 'a1', role: 'user', parts: [{ kind: 'text', text: 'Oslo' }] };

/** The contract's tests of what each step writes to the log, and of reading it. */
export function describeLogWrites(createStore: TaskStoreFactory): void {
  describe('the event log', () => {
    it('logs each step in the order its patch says, a status update last', async () => {
      const { store, clock } = await contractStore(createStore);
      await store.create(newTask('t1'));
      await store.update('t1', { status: 'working' }, { expectedStatus: 'submitted' });
      clock.now += 1_000;
      const asked = await store.update(
        't1',
        {
          progress: [{ type: 'text-delta', delta: 'Hm. ' }],
          messages: [question],
          artifacts: [{ artifactId: 'notes', name: 'Notes', parts: [{ kind: 'text', text: 'a' }] }],
          status: 'input-required',
          statusMessage: question,
        },
        { expectedStatus: 'working' },
      );
      expect(asked).toMatchObject({
        status: 'input-required',
        statusMessage: question,
        output: 'Hm. ',
        messages: [question],
        artifacts: [{ artifactId: 'notes', name: 'Notes', parts: [{ kind: 'text', text: 'a' }] }],
        updatedAt: '2026-01-01T00:00:01.000Z',
        seq: 6,
      });
      const entries = await store.events('t1', { after: 2 });
      expectSeqsFrom(entries, 3);
      expect(entries.map((entry) => entry.event)).toEqual([
        { type: 'text-delta', delta: 'Hm. ' },
        { type: 'message', message: question },
        {
          type: 'artifact-update',
          artifactId: 'notes',
          name: 'Notes',
          parts: [{ kind: 'text', text: 'a' }],
          append: false,
          lastChunk: false,
        },
        {
          type: 'status-update',
          status: 'input-required',
          message: question,
          timestamp: '2026-01-01T00:00:01.000Z',
        },
      ]);
      // A move without a status message clears it; the history keeps what it was given.
      const resumed = await store.update(
        't1',
        { status: 'working', messages: [answer] },
        { expectedStatus: 'input-required' },
      );
      expect(resumed.statusMessage).toBeUndefined();
      expect(resumed.messages).toEqual([question, answer]);
      const failed = await store.update(
        't1',
        { status: 'failed', error: { code: 'agent_failure', message: 'broke' } },
        { expectedStatus: 'working' },
      );
      expect((await store.events('t1', { after: failed.seq - 1 }))[0]?.event).toEqual({
        type: 'status-update',
        status: 'failed',
        error: { code: 'agent_failure', message: 'broke' },
        timestamp: failed.updatedAt,
      });
    });

    it('appends artifact chunks to the artifact of their id, or replaces it', async () => {
      const { store } = await contractStore(createStore);
      await store.create(newTask('t1'));
      await store.update('t1', { status: 'working' }, { expectedStatus: 'submitted' });
      const text = (value: string) => ({ kind: 'text' as const, text: value });
      const chunked = await store.update(
        't1',
        {
          artifacts: [
            { artifactId: 'a', name: 'A', parts: [text('1')] },
            { artifactId: 'a', parts: [text('2')], append: true },
            { artifactId: 'b', parts: [text('x')], append: true, lastChunk: true },
            { artifactId: 'a', parts: [text('3')], append: true, lastChunk: true },
          ],
        },
        { expectedStatus: 'working' },
      );
      expect(chunked.artifacts).toEqual([
        { artifactId: 'a', name: 'A', parts: [text('1'), text('2'), text('3')] },
        { artifactId: 'b', parts: [text('x')] },
      ]);
      const replaced = await store.update(
        't1',
        { artifacts: [{ artifactId: 'a', parts: [text('new')] }] },
        { expectedStatus: 'working' },
      );
      expect(replaced.artifacts[0]).toEqual({ artifactId: 'a', name: 'A', parts: [text('new')] });
      const events = (await store.events('t1', { after: 2 })).map((entry) => entry.event);
      expect(events).toContainEqual({
        type: 'artifact-update',
        artifactId: 'a',
        parts: [text('3')],
        append: true,
        lastChunk: true,
      });
    });

    it('appends progress as it is, the text deltas growing the output, until the task ends', async () => {
      const { store } = await contractStore(createStore);
      await store.create(newTask('t1'));
      await store.update('t1', { status: 'working' }, { expectedStatus: 'submitted' });
      const call = { type: 'tool-call', id: 'c1', name: 'add', input: { a: 1 } } as const;
      const task = await store.append('t1', [
        call,
        { type: 'text-delta', delta: 'one ' },
        { type: 'text-delta', delta: 'two' },
      ]);
      expect(task).toMatchObject({ status: 'working', output: 'one two', seq: 5 });
      await expect(store.append('t1', [])).resolves.toEqual(task);
      expect((await store.events('t1', { after: 2 })).map((entry) => entry.event)).toEqual([
        call,
        { type: 'text-delta', delta: 'one ' },
        { type: 'text-delta', delta: 'two' },
      ]);
      await expect(
        store.append('t1', [{ type: 'message', message: answer }] as never),
      ).rejects.toThrow(TypeError);
      await store.update('t1', { status: 'canceled' }, { expectedStatus: 'working' });
      // A late event of a canceled run is not kept.
      await expect(
        store.append('t1', [{ type: 'text-delta', delta: 'late' }]),
      ).rejects.toMatchObject({
        code: 'task_conflict',
        taskStatus: 'canceled',
      });
      expect(await store.get('t1')).toMatchObject({ output: 'one two', seq: 6 });
    });

    it('reads the events after a sequence number, with a limit, and says when it asks beyond the last', async () => {
      const { store } = await contractStore(createStore);
      await store.create(newTask('t1'));
      const done = await finish(store, 't1');
      expect(typesOf(await store.events('t1'))).toEqual([
        'status:submitted',
        'status:working',
        'status:completed',
      ]);
      const limited = await store.events('t1', { after: 1, limit: 1 });
      expect(limited).toEqual([{ seq: 2, event: expect.objectContaining({ status: 'working' }) }]);
      await expect(store.events('t1', { after: done.seq })).resolves.toEqual([]);
      await expect(store.events('t1', { after: done.seq + 1 })).rejects.toMatchObject({
        code: 'events_ahead',
        status: 400,
        taskId: 't1',
        after: 4,
        lastSeq: 3,
      });
      for (const after of [-1, 1.5, Number.NaN]) {
        await expect(store.events('t1', { after })).rejects.toMatchObject({
          code: 'invalid_input',
          field: 'after',
        });
      }
    });

    it('says when retention dropped events it is asked for, never answering with a gap', async () => {
      const { store } = await contractStore(createStore);
      await store.create(newTask('t1'));
      await store.update('t1', { status: 'working' }, { expectedStatus: 'submitted' });
      const deltas = Array.from({ length: CONTRACT_MAX_EVENTS + 10 }, (_, index) => ({
        type: 'text-delta' as const,
        delta: `${index} `,
      }));
      const task = await store.append('t1', deltas);
      const earliestAfter = task.seq - CONTRACT_MAX_EVENTS;
      await expect(store.events('t1', { after: earliestAfter - 1 })).rejects.toMatchObject({
        code: 'events_expired',
        status: 410,
        taskId: 't1',
        after: earliestAfter - 1,
        earliestAfter,
      });
      await expect(store.events('t1')).rejects.toMatchObject({ code: 'events_expired' });
      const kept = await store.events('t1', { after: earliestAfter });
      expect(kept).toHaveLength(CONTRACT_MAX_EVENTS);
      expectSeqsFrom(kept, earliestAfter + 1);
      // The snapshot still has the whole output.
      expect(task.output?.split(' ')).toHaveLength(CONTRACT_MAX_EVENTS + 11);
    });
  });
}

/** The contract's tests of following the log, and of what concurrent readers and writers see. */
export function describeLogReads(createStore: TaskStoreFactory): void {
  describe('following the log', () => {
    it('gives a reader the whole task from any snapshot and the events after its seq', async () => {
      const { store } = await contractStore(createStore);
      await store.create(newTask('t1', { messages: [answer] }));
      const snapshots = [await store.get('t1')];
      const writes = [
        () => store.update('t1', { status: 'working' }, { expectedStatus: 'submitted' }),
        () => store.append('t1', [{ type: 'text-delta', delta: 'a' }]),
        () =>
          store.update(
            't1',
            { artifacts: [{ artifactId: 'x', parts: [{ kind: 'data', data: { n: 1 } }] }] },
            { expectedStatus: 'working' },
          ),
        () =>
          store.append('t1', [
            { type: 'handoff', from: 'echo', to: 'other' },
            { type: 'text-delta', delta: 'b' },
          ]),
        () =>
          store.update(
            't1',
            { status: 'completed', output: 'ab!', messages: [question] },
            { expectedStatus: 'working' },
          ),
      ];
      for (const write of writes) {
        // Reads race the writes: whatever snapshot a reader got, it plus the events after it is the task.
        const [before, , after] = await Promise.all([store.get('t1'), write(), store.get('t1')]);
        snapshots.push(before, after);
      }
      expect(new Set(snapshots.map((snapshot) => snapshot?.seq)).size).toBeGreaterThan(4);
      const final = await store.get('t1');
      if (final === undefined) throw new Error('the task is gone');
      for (const snapshot of snapshots) {
        if (snapshot === undefined) throw new Error('the task is gone');
        const after = await store.events('t1', { after: snapshot.seq });
        expect(fold(snapshot, after)).toEqual(foldedFields(final));
      }
    });

    it('follows a task from a sequence number to its end, live, without a gap or a duplicate', async () => {
      const { store } = await contractStore(createStore);
      await store.create(newTask('t1'));
      await store.update('t1', { status: 'working' }, { expectedStatus: 'submitted' });
      const followed = collect(followTaskEvents(store, 't1', { after: 1 }));
      for (let index = 0; index < 5; index += 1) {
        await store.append('t1', [{ type: 'text-delta', delta: `${index}` }]);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await store.update(
        't1',
        { status: 'completed', output: '01234' },
        { expectedStatus: 'working' },
      );
      const entries = await followed;
      expectSeqsFrom(entries, 2);
      expect(typesOf(entries)).toEqual([
        'status:working',
        ...Array.from({ length: 5 }, () => 'text-delta'),
        'status:completed',
      ]);
      // A finished task: what is left, then the end.
      expect(typesOf(await collect(followTaskEvents(store, 't1', { after: 6 })))).toEqual([
        'text-delta',
        'status:completed',
      ]);
      await expect(collect(followTaskEvents(store, 't1', { after: 8 }))).resolves.toEqual([]);
      await expect(collect(followTaskEvents(store, 't1', { after: 9 }))).rejects.toMatchObject({
        code: 'events_ahead',
      });
      await expect(collect(followTaskEvents(store, 'nope'))).rejects.toMatchObject({
        code: 'task_not_found',
      });
    });

    it('stops following when its signal aborts', async () => {
      const { store } = await contractStore(createStore);
      await store.create(newTask('t1'));
      const controller = new AbortController();
      const seen: TaskLogEntry[] = [];
      const following = (async () => {
        for await (const entry of followTaskEvents(store, 't1', { signal: controller.signal })) {
          seen.push(entry);
        }
      })();
      await store.update('t1', { status: 'working' }, { expectedStatus: 'submitted' });
      await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort();
      await following;
      expect(typesOf(seen)).toEqual(['status:submitted', 'status:working']);
    });

    it('lets exactly one of many concurrent conditional updates win, and logs only that one', async () => {
      const { store } = await contractStore(createStore);
      await store.create(newTask('t1'));
      const targets = ['working', 'canceled', 'rejected', 'failed', 'working', 'canceled'] as const;
      const results = await Promise.allSettled(
        targets.map((status) =>
          store.update(
            't1',
            status === 'failed' ? { status, error: { code: 'x', message: 'y' } } : { status },
            {
              expectedStatus: 'submitted',
            },
          ),
        ),
      );
      const won = results.filter((result) => result.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected')
          expect(result.reason).toMatchObject({ code: 'task_conflict' });
      }
      const task = await store.get('t1');
      expect(task?.seq).toBe(2);
      expect(typesOf(await store.events('t1'))).toEqual([
        'status:submitted',
        `status:${task?.status}`,
      ]);
    });
  });
}
