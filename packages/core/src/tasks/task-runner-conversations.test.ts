import { describe, expect, it } from 'vitest';
import { createAssistantAgent, createBookingAgent, createEchoAgent } from '../agents/index.ts';
import { createMemoryConversationStore } from '../conversations/memory-conversation-store.ts';
import { defineAgent } from '../define-agent.ts';
import { inputRequired } from '../input-required.ts';
import type { Message } from '../message.ts';
import { createMemoryTaskStore } from './memory-task-store.ts';
import { createTaskRunner } from './task-runner.ts';

const texts = (messages: readonly Message[]) =>
  messages.map(
    (message) =>
      `${message.role}: ${message.parts.map((part) => (part.kind === 'text' ? part.text : part.kind)).join(' ')}`,
  );

describe('a runner carrying conversations', () => {
  it('completes the booking conversation in three turns, two of them input-required', async () => {
    const runner = createTaskRunner({ agent: createBookingAgent() });
    const first = await runner.submitAndWait('A table please');
    expect(first.status).toBe('input-required');
    expect(first.statusMessage?.parts).toEqual([{ kind: 'text', text: 'For how many people?' }]);
    expect(first.inputRequest?.schema).toMatchObject({ type: 'integer' });
    const again = await runner.resumeAndWait(first.id, 'lots');
    expect(again.statusMessage?.parts).toEqual([{ kind: 'text', text: 'For how many people?' }]);
    const second = await runner.resumeAndWait(first.id, '4');
    expect(second.status).toBe('input-required');
    expect(second.statusMessage?.parts).toEqual([{ kind: 'text', text: 'What time? (HH:MM)' }]);
    const done = await runner.resumeAndWait(first.id, '19:30');
    expect(done.status).toBe('completed');
    expect(done.output).toBe('Booked a table for 4 at 19:30.');
    expect(done.inputRequest).toBeUndefined();
    expect(texts(done.messages)).toEqual([
      'agent: For how many people?',
      'user: lots',
      'agent: For how many people?',
      'user: 4',
      'agent: What time? (HH:MM)',
      'user: 19:30',
    ]);
    await runner.close();
  });

  it('continues the waiting task of a context when a message names only the context', async () => {
    const runner = createTaskRunner({ agent: createBookingAgent() });
    const first = await runner.submitAndWait('Book', { contextId: 'dinner' });
    const second = await runner.submitAndWait('2', { contextId: 'dinner' });
    expect(second.id).toBe(first.id);
    const done = await runner.submitAndWait('20:00', { contextId: 'dinner' });
    expect(done).toMatchObject({
      id: first.id,
      status: 'completed',
      output: 'Booked a table for 2 at 20:00.',
    });
    // The conversation is over: the next message starts a new task in it.
    const next = await runner.submitAndWait('Another one', { contextId: 'dinner' });
    expect(next.id).not.toBe(first.id);
    expect(next.status).toBe('input-required');
    await runner.close();
  });

  it('answers 409 task_not_waiting to a message for a finished or running task', async () => {
    const runner = createTaskRunner({ agent: createBookingAgent() });
    const task = await runner.submitAndWait('Book');
    await runner.cancel(task.id);
    await expect(runner.resume(task.id, '2')).rejects.toMatchObject({
      code: 'task_not_waiting',
      status: 409,
    });
    await expect(runner.resume('nope', '2')).rejects.toMatchObject({ code: 'task_not_found' });
    await runner.close();
  });

  it('lets the assistant recall earlier messages within a context and not across two', async () => {
    const runner = createTaskRunner({ agent: createAssistantAgent() });
    await runner.submitAndWait('hello there', { contextId: 'a' });
    await runner.submitAndWait('what is 1 + 1', { contextId: 'a' });
    const recalled = await runner.submitAndWait('what did I say?', { contextId: 'a' });
    expect(recalled.output).toBe('hello there\nwhat is 1 + 1');
    const other = await runner.submitAndWait('what did I say?', { contextId: 'b' });
    expect(other.output).toBe('You have not said anything yet.');
    const own = await runner.submitAndWait('hi');
    // Its one turn is its task's until a second turn names its conversation.
    expect(await runner.conversations.get(own.contextId)).toBeUndefined();
    const followUp = await runner.submitAndWait('what did I say?', { contextId: own.contextId });
    expect(followUp.output).toBe('hi');
    await runner.close();
  });

  it('refuses a context of another agent as unknown, never mixing them', async () => {
    const store = createMemoryTaskStore();
    const conversations = createMemoryConversationStore();
    const assistant = createTaskRunner({ agent: createAssistantAgent(), store, conversations });
    const echo = createTaskRunner({ agent: createEchoAgent(), store, conversations });
    const task = await assistant.submitAndWait('secret');
    await expect(echo.submit('hi', { contextId: task.contextId })).rejects.toMatchObject({
      code: 'context_not_found',
      status: 404,
    });
    await assistant.close();
    await echo.close();
  });

  it('hands a run at most maxHistory earlier messages, and the store keeps its bound', async () => {
    const seen: number[] = [];
    const agent = defineAgent({
      name: 'counter',
      async *run(_input, context) {
        seen.push(context.history.length);
        yield { type: 'text-delta', delta: 'ok' };
      },
    });
    const conversations = createMemoryConversationStore({ maxMessagesPerConversation: 6 });
    const runner = createTaskRunner({ agent, conversations, maxHistory: 3 });
    for (let turn = 0; turn < 5; turn += 1) await runner.submitAndWait('x', { contextId: 'c' });
    expect(seen).toEqual([0, 2, 3, 3, 3]);
    expect((await conversations.get('c'))?.messages).toHaveLength(6);
    await runner.close();
  });

  it('gives a resumed run the state its pause left, however it was stored', async () => {
    const states: unknown[] = [];
    const agent = defineAgent({
      name: 'stateful',
      async *run(input, context) {
        states.push(context.resumeState);
        if (context.resumeState === undefined)
          return inputRequired('Name?', { state: { asked: 1 } });
        yield { type: 'text-delta', delta: `Hi ${input}` };
      },
    });
    const store = createMemoryTaskStore();
    const conversations = createMemoryConversationStore();
    const first = createTaskRunner({ agent, store, conversations });
    const task = await first.submitAndWait('start');
    await first.close();
    // Another runner (another process, as far as the task knows) takes the answer.
    const second = createTaskRunner({ agent, store, conversations });
    const done = await second.resumeAndWait(task.id, 'Ada');
    expect(done.output).toBe('Hi Ada');
    expect(states).toEqual([undefined, { asked: 1 }]);
    await second.close();
  });

  it('stores artifact chunks an agent emits as the task artifacts, in order with its events', async () => {
    const agent = defineAgent({
      name: 'writer',
      async *run() {
        yield { type: 'text-delta', delta: 'a' };
        yield {
          type: 'artifact-update',
          artifactId: 'doc',
          name: 'doc.txt',
          parts: [{ kind: 'text', text: 'one' }],
        };
        yield {
          type: 'artifact-update',
          artifactId: 'doc',
          parts: [{ kind: 'text', text: 'two' }],
          append: true,
          lastChunk: true,
        };
        yield { type: 'text-delta', delta: 'b' };
      },
    });
    const runner = createTaskRunner({ agent });
    const task = await runner.submitAndWait('go');
    expect(task.output).toBe('ab');
    expect(task.artifacts).toEqual([
      {
        artifactId: 'doc',
        name: 'doc.txt',
        parts: [
          { kind: 'text', text: 'one' },
          { kind: 'text', text: 'two' },
        ],
      },
    ]);
    const types = (await runner.events(task.id)).map(({ event }) => event.type);
    expect(types).toEqual([
      'status-update',
      'status-update',
      'text-delta',
      'artifact-update',
      'artifact-update',
      'text-delta',
      'status-update',
    ]);
    await runner.close();
  });

  it('ends a follow at a pause once caught up, and a later follow goes on from it', async () => {
    const runner = createTaskRunner({ agent: createBookingAgent() });
    const task = await runner.submitAndWait('Book');
    const seen: string[] = [];
    for await (const { event } of runner.follow(task.id))
      seen.push(event.type === 'status-update' ? event.status : event.type);
    expect(seen).toEqual(['submitted', 'working', 'message', 'input-required']);
    const resumed = await runner.resume(task.id, '3');
    const after: string[] = [];
    for await (const { event } of runner.follow(task.id, { after: resumed.seq }))
      after.push(event.type === 'status-update' ? event.status : event.type);
    expect(after).toEqual(['message', 'input-required']);
    await runner.close();
  });

  it('cancels a task waiting for input', async () => {
    const runner = createTaskRunner({ agent: createBookingAgent() });
    const task = await runner.submitAndWait('Book');
    expect((await runner.cancel(task.id)).status).toBe('canceled');
    await runner.close();
  });
});

describe('converse', () => {
  it('completes a turn without a task and records it in a new conversation', async () => {
    const runner = createTaskRunner({ agent: createAssistantAgent() });
    const first = await runner.converse('hello');
    expect(first).toEqual({
      status: 'completed',
      output: expect.any(String),
      contextId: expect.any(String),
    });
    expect((await runner.list()).tasks).toHaveLength(0);
    const recalled = await runner.converse('what did I say?', { contextId: first.contextId });
    expect(recalled.output).toBe('hello');
    await runner.close();
  });

  it('makes a paused turn a task, and continues it by context or by task id', async () => {
    const runner = createTaskRunner({ agent: createBookingAgent() });
    const first = await runner.converse('Book');
    expect(first).toMatchObject({
      status: 'input-required',
      output: 'For how many people?',
      taskId: expect.any(String),
    });
    const task = await runner.get(first.taskId as string);
    expect(task).toMatchObject({ status: 'input-required', contextId: first.contextId });
    const second = await runner.converse('5', { contextId: first.contextId });
    expect(second).toMatchObject({
      status: 'input-required',
      output: 'What time? (HH:MM)',
      taskId: first.taskId,
    });
    const done = await runner.converse('12:15', { taskId: first.taskId as string });
    expect(done).toEqual({
      status: 'completed',
      output: 'Booked a table for 5 at 12:15.',
      contextId: first.contextId,
      taskId: first.taskId,
    });
    await expect(
      runner.converse('again', { taskId: first.taskId as string }),
    ).rejects.toMatchObject({ code: 'task_not_waiting' });
    await expect(
      runner.converse('x', { taskId: first.taskId as string, contextId: 'other' }),
    ).rejects.toMatchObject({ code: 'task_not_found' });
    await runner.close();
  });

  it('rejects with the agent failure, and a canceled turn with canceled', async () => {
    const agent = defineAgent({
      name: 'slow',
      async *run(_input, context) {
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
        yield { type: 'text-delta', delta: 'late' };
      },
    });
    const runner = createTaskRunner({ agent });
    const controller = new AbortController();
    const turn = runner.converse('go', { signal: controller.signal });
    controller.abort();
    await expect(turn).rejects.toMatchObject({ code: 'canceled' });
    await runner.close();
  });
});

describe('waitingIn', () => {
  it('names the task of a context that waits for input, and nothing once it is answered', async () => {
    const runner = createTaskRunner({ agent: createBookingAgent() });
    expect(await runner.waitingIn('unknown')).toBeUndefined();
    const task = await runner.submitAndWait('Book', { contextId: 'table' });
    expect(await runner.waitingIn('table')).toBe(task.id);
    await runner.cancel(task.id);
    expect(await runner.waitingIn('table')).toBeUndefined();
    await runner.close();
  });
});
