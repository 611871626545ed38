import {
  ListTasksRequest,
  type Message,
  type StreamResponse,
  type Task,
  TaskState,
} from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { noAuthentication } from '../http/call-context.ts';
import { createGatedAgent, type GatedAgent } from '../test-support/gated-agent.ts';
import {
  type ClientFlavour,
  eventually,
  FLAVOURS,
  kindsOf,
  officialClient,
  outputOf,
  textOf,
  textRequest,
} from '../test-support/sdk-client.ts';
import { type ServeAgentOptions, type ServedAgent, serveAgent } from '../test-support/servers.ts';

const JSON_RPC_V1: ClientFlavour = { binding: 'JSONRPC', version: '1.0' };

beforeAll(() => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});

afterAll(() => {
  vi.restoreAllMocks();
});

/** The calls a server received and the ones whose caller went away, counted as they arrive. */
interface Calls {
  received: number;
  aborted: number;
}

/** One served gated agent, its client and the calls its server saw. */
interface Setup {
  gated: GatedAgent;
  served: ServedAgent;
  client: Client;
  calls: Calls;
}

const servers: ServedAgent[] = [];

afterEach(async () => {
  for (const served of servers.splice(0)) {
    served.server.close();
    await served.close();
  }
});

async function setUp(
  flavour: ClientFlavour,
  options: ServeAgentOptions,
  gated = createGatedAgent(),
): Promise<Setup> {
  const calls: Calls = { received: 0, aborted: 0 };
  const served = await serveAgent(gated.agent, {
    ...options,
    // Called for every JSON-RPC and HTTP+JSON call as it is dispatched, with its request.
    userBuilder: (request) => {
      calls.received += 1;
      request.signal.addEventListener('abort', () => (calls.aborted += 1), { once: true });
      return noAuthentication(request);
    },
  });
  servers.push(served);
  return { gated, served, client: await officialClient(served.cardUrl, flavour), calls };
}

function asTask(result: Message | Task): Task {
  expect(result).toHaveProperty('status');
  return result as Task;
}

function asMessage(result: Message | Task): Message {
  expect(result).toHaveProperty('messageId');
  return result as Message;
}

/** Sends a non-blocking message and answers its task. */
async function start(client: Client, text: string): Promise<Task> {
  return asTask(await client.sendMessage(textRequest(text, { returnImmediately: true })));
}

function getTask(client: Client, id: string): Promise<Task> {
  return client.getTask({ tenant: '', id, historyLength: undefined });
}

function stateOf(task: Task): string {
  return TaskState[task.status?.state ?? 0] ?? 'none';
}

/** Polls a task until it is in `state`. */
function reach(client: Client, id: string, state: TaskState): Promise<Task> {
  return eventually(async () => {
    const task = await getTask(client, id);
    return task.status?.state === state ? task : undefined;
  });
}

/** Waits until the agent has started the runs of these inputs. */
function started(gated: GatedAgent, ...inputs: string[]): Promise<true> {
  return eventually(async () =>
    inputs.every((input) => gated.started.includes(input)) ? true : undefined,
  );
}

/** Waits until the server has received `count` calls in all. */
function received(calls: Calls, count: number): Promise<true> {
  return eventually(async () => (calls.received >= count ? true : undefined));
}

/** The tasks a server holds for one conversation (read on the server, for every flavour). */
async function tasksOf(served: ServedAgent, contextId: string): Promise<Task[]> {
  const page = await served.server.requestHandler.listTasks(
    ListTasksRequest.fromJSON({ contextId }),
    new ServerCallContext({ requestedVersion: '1.0' }),
  );
  return page.tasks;
}

describe.each(FLAVOURS)(
  'maxConcurrency 2, the official client over $binding (A2A $version)',
  (flavour) => {
    let setup: Setup;

    beforeEach(async () => {
      setup = await setUp(flavour, { maxConcurrency: 2 });
    });

    it('answers a third non-blocking message with a task in submitted while two are working', async () => {
      const { client, gated } = setup;
      const first = await start(client, 'first');
      const second = await start(client, 'second');
      expect([stateOf(first), stateOf(second)]).toEqual([
        'TASK_STATE_WORKING',
        'TASK_STATE_WORKING',
      ]);
      await started(gated, 'first', 'second');

      const third = await start(client, 'third');
      expect(stateOf(third)).toBe('TASK_STATE_SUBMITTED');
      expect(stateOf(await getTask(client, third.id))).toBe('TASK_STATE_SUBMITTED');
      expect(stateOf(await getTask(client, first.id))).toBe('TASK_STATE_WORKING');
      expect(gated.started).toEqual(['first', 'second']);

      gated.release('first');
      expect(outputOf(await reach(client, first.id, TaskState.TASK_STATE_COMPLETED))).toBe(
        'done first',
      );
      await reach(client, third.id, TaskState.TASK_STATE_WORKING);
      expect(gated.started).toEqual(['first', 'second', 'third']);
      gated.release('third');
      const done = await reach(client, third.id, TaskState.TASK_STATE_COMPLETED);
      expect(outputOf(done)).toBe('done third');
      expect(textOf(done.history?.[0]?.parts)).toBe('third');
      expect(stateOf(await getTask(client, second.id))).toBe('TASK_STATE_WORKING');
    });

    it('cancels a queued task without ever running the agent for it, freeing no slot', async () => {
      const { client, gated } = setup;
      const first = await start(client, 'first');
      await start(client, 'second');
      const queued = await start(client, 'queued');
      expect(stateOf(queued)).toBe('TASK_STATE_SUBMITTED');

      const canceled = await client.cancelTask({ tenant: '', id: queued.id, metadata: undefined });
      expect(stateOf(canceled)).toBe('TASK_STATE_CANCELED');
      // The canceled task held no slot, so none was freed: the next one still waits.
      const next = await start(client, 'next');
      expect(stateOf(next)).toBe('TASK_STATE_SUBMITTED');

      gated.release('first');
      await reach(client, first.id, TaskState.TASK_STATE_COMPLETED);
      await reach(client, next.id, TaskState.TASK_STATE_WORKING);
      expect(gated.started).toEqual(['first', 'second', 'next']);
      expect(stateOf(await getTask(client, queued.id))).toBe('TASK_STATE_CANCELED');
    });

    it('frees the slot of every run that fails or is canceled: new runs then start at once', async () => {
      const { client, gated } = setup;
      for (let round = 0; round < 3; round++) {
        const failing = await start(client, `fail ${round}`);
        const canceling = await start(client, `cancel ${round}`);
        expect(stateOf(failing)).toBe('TASK_STATE_WORKING');
        expect(stateOf(canceling)).toBe('TASK_STATE_WORKING');
        const queued = await start(client, `queued ${round}`);
        expect(stateOf(queued)).toBe('TASK_STATE_SUBMITTED');
        await client.cancelTask({ tenant: '', id: queued.id, metadata: undefined });

        gated.release(`fail ${round}`, 'fail');
        const failed = await reach(client, failing.id, TaskState.TASK_STATE_FAILED);
        expect(textOf(failed.status?.message?.parts)).toBe(`'fail ${round}' failed on purpose`);
        const canceled = await client.cancelTask({
          tenant: '',
          id: canceling.id,
          metadata: undefined,
        });
        expect(stateOf(canceled)).toBe('TASK_STATE_CANCELED');
      }
      const after = [await start(client, 'after 1'), await start(client, 'after 2')];
      expect(after.map(stateOf)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_WORKING']);
      expect(gated.started.filter((input) => input.startsWith('queued'))).toEqual([]);
    });

    it('streams a queued task: submitted first, working when it gets its slot, then its output', async () => {
      const { client, gated } = setup;
      await start(client, 'first');
      await start(client, 'second');
      const events: StreamResponse[] = [];
      const streaming = (async () => {
        for await (const event of client.sendMessageStream(textRequest('streamed'))) {
          events.push(event);
        }
      })();
      await eventually(async () => (events.length > 0 ? true : undefined));
      const first = events[0]?.payload;
      expect(first?.$case === 'task' && stateOf(first.value)).toBe('TASK_STATE_SUBMITTED');

      gated.release('first');
      await started(gated, 'streamed');
      gated.release('streamed');
      await streaming;
      expect(kindsOf(events)).toEqual([
        'task',
        'statusUpdate:TASK_STATE_WORKING',
        'artifactUpdate',
        'statusUpdate:TASK_STATE_COMPLETED',
      ]);
      const update = events[2]?.payload;
      expect(update?.$case === 'artifactUpdate' && textOf(update.value.artifact?.parts)).toBe(
        'done streamed',
      );
    });

    it('keeps a blocking caller waiting until its queued run has had its turn', async () => {
      const { client, gated, served } = setup;
      await start(client, 'first');
      await start(client, 'second');
      const contextId = crypto.randomUUID();
      let answered = false;
      const blocking = client.sendMessage(textRequest('blocking', { contextId })).then((result) => {
        answered = true;
        return asTask(result);
      });
      const [queued] = await eventually(async () => {
        const tasks = await tasksOf(served, contextId);
        return tasks.length > 0 ? tasks : undefined;
      });
      expect(queued && stateOf(queued)).toBe('TASK_STATE_SUBMITTED');

      gated.release('second');
      await started(gated, 'blocking');
      expect(answered).toBe(false);
      gated.release('blocking');
      const done = await blocking;
      expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');
      expect(outputOf(done)).toBe('done blocking');
    });
  },
);

describe('maxConcurrency, per server and for message answers', () => {
  it('keeps a limit per server: a full server does not hold back another one', async () => {
    const gated = createGatedAgent();
    const one = await setUp(JSON_RPC_V1, { maxConcurrency: 1 }, gated);
    const other = await setUp(JSON_RPC_V1, { maxConcurrency: 1 }, gated);
    expect(stateOf(await start(one.client, 'one a'))).toBe('TASK_STATE_WORKING');
    expect(stateOf(await start(one.client, 'one b'))).toBe('TASK_STATE_SUBMITTED');
    expect(stateOf(await start(other.client, 'other a'))).toBe('TASK_STATE_WORKING');
    expect(stateOf(await start(other.client, 'other b'))).toBe('TASK_STATE_SUBMITTED');
  });

  it('runs message answers in turn: a blocking message waits for the slot', async () => {
    const { client, gated, calls } = await setUp(JSON_RPC_V1, {
      maxConcurrency: 1,
      replyWith: 'message',
    });
    const first = client.sendMessage(textRequest('first'));
    await started(gated, 'first');
    const second = client.sendMessage(textRequest('second'));
    await received(calls, 2);
    expect(gated.started).toEqual(['first']);

    gated.release('first');
    expect(textOf(asMessage(await first).parts)).toBe('done first');
    await started(gated, 'second');
    gated.release('second');
    expect(textOf(asMessage(await second).parts)).toBe('done second');
  });

  it('drops a waiting message answer whose caller goes away: the agent never runs it', async () => {
    const { client, gated, calls } = await setUp(JSON_RPC_V1, {
      maxConcurrency: 1,
      replyWith: 'message',
    });
    const first = client.sendMessage(textRequest('first'));
    await started(gated, 'first');
    const controller = new AbortController();
    const abandoned = client.sendMessage(textRequest('abandoned'), { signal: controller.signal });
    abandoned.catch(() => undefined);
    await received(calls, 2);
    controller.abort();
    await expect(abandoned).rejects.toThrow();
    await eventually(async () => (calls.aborted >= 1 ? true : undefined));
    const third = client.sendMessage(textRequest('third'));
    await received(calls, 3);

    gated.release('first');
    await first;
    await started(gated, 'third');
    expect(gated.started).toEqual(['first', 'third']);
    gated.release('third');
    expect(textOf(asMessage(await third).parts)).toBe('done third');
  });

  it('frees the slot of a message answer that fails or whose caller goes away', async () => {
    const { client, gated, calls } = await setUp(JSON_RPC_V1, {
      maxConcurrency: 1,
      replyWith: 'message',
    });
    const failing = client.sendMessage(textRequest('failing'));
    await started(gated, 'failing');
    gated.release('failing', 'fail');
    expect(stateOf(asTask(await failing))).toBe('TASK_STATE_FAILED');

    const controller = new AbortController();
    const abandoned = client.sendMessage(textRequest('abandoned'), { signal: controller.signal });
    abandoned.catch(() => undefined);
    await started(gated, 'abandoned');
    controller.abort();
    await expect(abandoned).rejects.toThrow();
    await eventually(async () => (calls.aborted >= 1 ? true : undefined));

    const last = client.sendMessage(textRequest('last'));
    await started(gated, 'last');
    gated.release('last');
    expect(textOf(asMessage(await last).parts)).toBe('done last');
  });
});
