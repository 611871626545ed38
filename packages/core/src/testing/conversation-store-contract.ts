import { describe, expect, it } from 'vitest';
import type { ConversationStore } from '../conversations/conversation-store.ts';
import { agentMessage, type Message, userMessage } from '../message.ts';

/** What a conversation store made for the contract must honour. */
export interface ConversationStoreContractOptions {
  /** Its clock, in milliseconds: the suite moves it to expire conversations. */
  now: () => number;
  /** How long it keeps a conversation after its last change. */
  ttlMs: number;
  /** How many messages of one conversation it keeps at most (the oldest go first). */
  maxMessagesPerConversation: number;
}

/** Makes a new, empty conversation store for one test of the contract. */
export type ConversationStoreFactory = (
  options: ConversationStoreContractOptions,
) => ConversationStore | Promise<ConversationStore>;

const TTL_MS = 60_000;
const MAX_MESSAGES = 5;

/** A new store for a test, with a clock the test can move. */
async function contractStore(createStore: ConversationStoreFactory) {
  const clock = { now: Date.UTC(2026, 0, 1) };
  const store = await createStore({
    now: () => clock.now,
    ttlMs: TTL_MS,
    maxMessagesPerConversation: MAX_MESSAGES,
  });
  return { store, clock };
}

/** What a reader can rely on of a message read back: its role and parts (a store may renumber ids). */
function shapes(messages: readonly Message[] | undefined) {
  return messages?.map(({ role, parts }) => ({ role, parts }));
}

/** The contract's tests of writing and reading conversations. */
function describeReadsAndWrites(createStore: ConversationStoreFactory): void {
  it('appends messages in order and reads them back, the newest `limit` when asked', async () => {
    const { store } = await contractStore(createStore);
    await store.append('c1', { agentName: 'a', messages: [userMessage('1'), agentMessage('2')] });
    await store.append('c1', { agentName: 'a', messages: [userMessage('3')] });
    const conversation = await store.get('c1');
    expect(conversation).toMatchObject({
      contextId: 'c1',
      agentName: 'a',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(conversation?.waitingTaskId).toBeUndefined();
    expect(shapes(conversation?.messages)).toEqual([
      { role: 'user', parts: [{ kind: 'text', text: '1' }] },
      { role: 'agent', parts: [{ kind: 'text', text: '2' }] },
      { role: 'user', parts: [{ kind: 'text', text: '3' }] },
    ]);
    expect(shapes((await store.get('c1', { limit: 2 }))?.messages)).toEqual([
      { role: 'agent', parts: [{ kind: 'text', text: '2' }] },
      { role: 'user', parts: [{ kind: 'text', text: '3' }] },
    ]);
    await expect(store.get('unknown')).resolves.toBeUndefined();
  });

  it('gives every message back with its parts, ids distinct, and keeps non-text messages whole', async () => {
    const { store } = await contractStore(createStore);
    const file: Message = {
      messageId: 'f1',
      role: 'user',
      parts: [{ kind: 'file', mediaType: 'image/png', bytes: 'aGk=' }],
    };
    const data: Message = {
      messageId: 'd1',
      role: 'agent',
      parts: [{ kind: 'data', data: { city: 'Oslo', days: [1, 2] } }],
    };
    await store.append('c1', { agentName: 'a', messages: [userMessage('hi'), file, data] });
    const messages = (await store.get('c1'))?.messages ?? [];
    expect(messages.slice(1)).toEqual([file, data]);
    expect(new Set(messages.map((message) => message.messageId)).size).toBe(3);
  });

  it('refuses another agent its conversation with context_not_found, changing nothing', async () => {
    const { store } = await contractStore(createStore);
    await store.append('c1', { agentName: 'a', messages: [userMessage('mine')] });
    await expect(
      store.append('c1', { agentName: 'b', messages: [userMessage('theirs')] }),
    ).rejects.toMatchObject({ code: 'context_not_found', status: 404 });
    expect(await store.get('c1')).toMatchObject({ agentName: 'a', messages: [expect.anything()] });
  });

  it('refuses an empty contextId and a message without the shape of one, keeping nothing', async () => {
    const { store } = await contractStore(createStore);
    await expect(
      store.append('', { agentName: 'a', messages: [userMessage('x')] }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(
      store.append('c1', {
        agentName: 'a',
        messages: [userMessage('ok'), { role: 'user' } as never],
      }),
    ).rejects.toThrow(TypeError);
    await expect(store.get('c1')).resolves.toBeUndefined();
  });

  it('sets the waiting task, keeps it while a change names none, and clears it with null', async () => {
    const { store } = await contractStore(createStore);
    await store.append('c1', { agentName: 'a', messages: [userMessage('1')], waitingTaskId: 't1' });
    expect((await store.get('c1'))?.waitingTaskId).toBe('t1');
    await store.append('c1', { agentName: 'a', messages: [agentMessage('2')] });
    expect((await store.get('c1'))?.waitingTaskId).toBe('t1');
    await store.append('c1', { agentName: 'a', messages: [], waitingTaskId: null });
    const cleared = await store.get('c1');
    expect(cleared?.waitingTaskId).toBeUndefined();
    expect(cleared?.messages).toHaveLength(2);
  });

  it('hands out conversations that cannot change the store', async () => {
    const { store } = await contractStore(createStore);
    const text = { kind: 'text' as const, text: 'a' };
    const given: Message = {
      messageId: 'm1',
      role: 'user',
      parts: [text, { kind: 'text', text: 'b' }],
    };
    await store.append('c1', { agentName: 'a', messages: [given] });
    text.text = 'changed';
    const read = await store.get('c1');
    if (read === undefined) throw new Error('the conversation is gone');
    try {
      (read.messages as Message[]).push(userMessage('sneaked in'));
    } catch {
      // Frozen: refused, as it should be.
    }
    expect(shapes((await store.get('c1'))?.messages)).toEqual([
      {
        role: 'user',
        parts: [
          { kind: 'text', text: 'a' },
          { kind: 'text', text: 'b' },
        ],
      },
    ]);
  });

  it('names new conversations uniquely, names an append can use', async () => {
    const { store } = await contractStore(createStore);
    const names = Array.from({ length: 20 }, () => store.newContextId());
    expect(new Set(names).size).toBe(names.length);
    const [first] = names as [string];
    await expect(store.get(first)).resolves.toBeUndefined();
    await store.append(first, { agentName: 'a', messages: [userMessage('hello')] });
    expect((await store.get(first))?.messages).toHaveLength(1);
  });
}

/** The contract's tests of what a store keeps, and for how long. */
function describeRetention(createStore: ConversationStoreFactory): void {
  it('drops a conversation’s oldest messages past its bound', async () => {
    const { store } = await contractStore(createStore);
    for (let index = 1; index <= MAX_MESSAGES + 2; index += 1) {
      await store.append('c1', { agentName: 'a', messages: [userMessage(`${index}`)] });
    }
    const texts = (await store.get('c1'))?.messages.map((message) => message.parts[0]);
    expect(texts).toEqual(
      Array.from({ length: MAX_MESSAGES }, (_, index) => ({ kind: 'text', text: `${index + 3}` })),
    );
  });

  it('keeps a conversation for ttlMs after its last change, and deleteExpired removes it then', async () => {
    const { store, clock } = await contractStore(createStore);
    await store.append('old', { agentName: 'a', messages: [userMessage('1')] });
    await store.append('young', { agentName: 'a', messages: [userMessage('1')] });
    clock.now += TTL_MS - 1;
    await store.append('young', { agentName: 'a', messages: [agentMessage('2')] });
    expect((await store.get('young'))?.updatedAt).toBe(new Date(clock.now).toISOString());
    await expect(store.deleteExpired()).resolves.toBe(0);
    await expect(store.get('old')).resolves.toBeDefined();
    clock.now += 1;
    await expect(store.deleteExpired()).resolves.toBe(1);
    await expect(store.get('old')).resolves.toBeUndefined();
    await expect(store.get('young')).resolves.toBeDefined();
    clock.now += TTL_MS;
    // Gone for reads at once, whether or not anything deleted it yet.
    await expect(store.get('young')).resolves.toBeUndefined();
    await store.deleteExpired();
    await expect(store.deleteExpired()).resolves.toBe(0);
  });

  it('starts an expired conversation afresh, for any agent', async () => {
    const { store, clock } = await contractStore(createStore);
    await store.append('c1', { agentName: 'a', messages: [userMessage('old')] });
    clock.now += TTL_MS;
    await store.append('c1', { agentName: 'b', messages: [userMessage('new')] });
    const conversation = await store.get('c1');
    expect(conversation?.agentName).toBe('b');
    expect(shapes(conversation?.messages)).toEqual([
      { role: 'user', parts: [{ kind: 'text', text: 'new' }] },
    ]);
  });
}

/**
 * The behaviour every `ConversationStore` owes its callers, as vitest tests: append and read in
 * order (with a limit), messages given back with their parts, one agent per conversation, input
 * checks, the waiting task, values that cannot change the store, `newContextId`, the per-conversation
 * bound and the TTL. Call it in a test file with a factory making a new, empty store for each
 * test, honouring the options it is given (a clock, a TTL, a bound on messages per conversation).
 *
 * @example
 * describeConversationStoreContract('the memory store', (options) =>
 *   createMemoryConversationStore(options),
 * );
 */
export function describeConversationStoreContract(
  name: string,
  createStore: ConversationStoreFactory,
): void {
  describe(`${name} (ConversationStore contract)`, () => {
    describeReadsAndWrites(createStore);
    describeRetention(createStore);
  });
}
