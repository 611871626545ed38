import { describe, expect, it } from 'vitest';
import { agentMessage, userMessage } from '../message.ts';
import { createMemoryConversationStore } from './memory-conversation-store.ts';

describe('the in-memory conversation store', () => {
  it('appends messages in order and reads the newest `limit` of them', async () => {
    const store = createMemoryConversationStore();
    await store.append('c', { agentName: 'a', messages: [userMessage('1'), agentMessage('2')] });
    await store.append('c', { agentName: 'a', messages: [userMessage('3')] });
    const all = await store.get('c');
    expect(all?.messages.map((message) => message.parts)).toEqual([
      [{ kind: 'text', text: '1' }],
      [{ kind: 'text', text: '2' }],
      [{ kind: 'text', text: '3' }],
    ]);
    expect((await store.get('c', { limit: 1 }))?.messages).toHaveLength(1);
    expect(await store.get('unknown')).toBeUndefined();
  });

  it('refuses another agent its conversation with context_not_found', async () => {
    const store = createMemoryConversationStore();
    await store.append('c', { agentName: 'a', messages: [userMessage('mine')] });
    await expect(store.append('c', { agentName: 'b', messages: [] })).rejects.toMatchObject({
      code: 'context_not_found',
    });
  });

  it('drops a conversation’s oldest messages past its bound, and the least recently changed conversation past the count', async () => {
    const store = createMemoryConversationStore({
      maxMessagesPerConversation: 2,
      maxConversations: 2,
    });
    for (const text of ['1', '2', '3'])
      await store.append('a', { agentName: 'x', messages: [userMessage(text)] });
    expect((await store.get('a'))?.messages.map((message) => message.parts[0])).toEqual([
      { kind: 'text', text: '2' },
      { kind: 'text', text: '3' },
    ]);
    await store.append('b', { agentName: 'x', messages: [] });
    await store.append('a', { agentName: 'x', messages: [] });
    await store.append('c', { agentName: 'x', messages: [] });
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toBeDefined();
  });

  it('keeps a conversation for ttlMs after its last change, and sweeps it then', async () => {
    let now = 0;
    const store = createMemoryConversationStore({ ttlMs: 100, now: () => now });
    await store.append('a', { agentName: 'x', messages: [userMessage('1')], waitingTaskId: 't' });
    expect((await store.get('a'))?.waitingTaskId).toBe('t');
    now = 99;
    expect(await store.get('a')).toBeDefined();
    now = 100;
    expect(await store.deleteExpired(new Date(now))).toBe(1);
    expect(await store.get('a')).toBeUndefined();
  });

  it('refuses a message without the shape of one', async () => {
    const store = createMemoryConversationStore();
    await expect(
      store.append('a', { agentName: 'x', messages: [{ role: 'user' } as never] }),
    ).rejects.toThrow(/messageId/);
  });
});

describe('the byte bound', () => {
  it('counts the characters of what it keeps, so maxBytes bounds long messages', async () => {
    // A text of 10,000 characters holds ~20 KB: two fit in 50 KB, a third evicts the oldest.
    const message = agentMessage('x'.repeat(10_000));
    const store = createMemoryConversationStore({ maxBytes: 50_000 });
    for (const id of ['a', 'b', 'c'])
      await store.append(id, { agentName: 'x', messages: [message] });
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('b')).toBeDefined();
    expect(await store.get('c')).toBeDefined();
  });

  it('gives a text message back as it was, and keeps other messages whole', async () => {
    const store = createMemoryConversationStore();
    const file = {
      messageId: 'f1',
      role: 'user' as const,
      parts: [{ kind: 'file' as const, mediaType: 'image/png', bytes: 'aGk=' }],
    };
    await store.append('a', {
      agentName: 'x',
      messages: [userMessage('hi'), file, agentMessage('yo')],
    });
    const messages = (await store.get('a'))?.messages ?? [];
    expect(messages.map(({ role, parts }) => ({ role, parts }))).toEqual([
      { role: 'user', parts: [{ kind: 'text', text: 'hi' }] },
      { role: 'user', parts: file.parts },
      { role: 'agent', parts: [{ kind: 'text', text: 'yo' }] },
    ]);
    expect(messages[1]?.messageId).toBe('f1');
    expect(new Set(messages.map(({ messageId }) => messageId)).size).toBe(3);
  });
});

describe('the conversations it names', () => {
  it('keeps one-turn conversations it named, continued ones as any other, and never a name it did not give', async () => {
    const store = createMemoryConversationStore({ maxConversations: 3 });
    const named = [store.newContextId(), store.newContextId()];
    expect(new Set(named).size).toBe(2);
    for (const id of named) await store.append(id, { agentName: 'x', messages: [userMessage(id)] });
    expect((await store.get(named[0] as string))?.messages).toHaveLength(1);
    // A second turn keeps it as any conversation is kept.
    await store.append(named[0] as string, { agentName: 'x', messages: [agentMessage('again')] });
    expect((await store.get(named[0] as string))?.messages).toHaveLength(2);
    // A caller's id shaped like a name the store gives is an ordinary conversation of its own.
    const forged = `${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}.1`;
    await store.append(forged, { agentName: 'x', messages: [userMessage('forged')] });
    expect((await store.get(named[1] as string))?.messages).toHaveLength(1);
    expect((await store.get(forged))?.messages).toHaveLength(1);
  });

  it('gives the slot of the oldest one-turn conversation to the next name once the ring is round', async () => {
    const store = createMemoryConversationStore({ maxConversations: 2 });
    const first = store.newContextId();
    await store.append(first, { agentName: 'x', messages: [userMessage('1')] });
    const second = store.newContextId();
    await store.append(second, { agentName: 'x', messages: [userMessage('2')] });
    const third = store.newContextId();
    await store.append(third, { agentName: 'x', messages: [userMessage('3')] });
    expect(await store.get(first)).toBeUndefined();
    expect(await store.get(second)).toBeDefined();
    expect(await store.get(third)).toBeDefined();
    expect(await store.deleteExpired(new Date(Date.now() + 2 * 60 * 60 * 1000))).toBe(2);
    expect(await store.get(third)).toBeUndefined();
  });
});
