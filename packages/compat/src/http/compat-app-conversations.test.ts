import {
  createMemoryConversationStore,
  createMemoryTaskStore,
  defineAgent,
  defineTool,
  inputRequired,
} from '@agentport/core';
import { createAssistantAgent, createBookingAgent } from '@agentport/core/agents';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { RunResponse } from '../definitions.ts';
import { createRunner } from '../runner.ts';
import { createCompatApp } from './compat-app.ts';

function appOf(agents = [createAssistantAgent(), createBookingAgent()]) {
  const store = createMemoryTaskStore();
  const conversations = createMemoryConversationStore();
  const runner = createRunner({ agents, store, conversations });
  return { app: createCompatApp({ runner, store }), store, conversations };
}

async function postRun(app: ReturnType<typeof appOf>['app'], body: unknown) {
  const response = await app.request('/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('POST /runs conversations', () => {
  it('completes the booking conversation in three turns, two of them interruptions', async () => {
    const { app, store } = appOf();
    const first = await postRun(app, { agent_name: 'booking', input: 'a table please' });
    expect(first.status).toBe(200);
    const conversationId = first.body.conversation_id as string;
    expect(conversationId).toEqual(expect.any(String));
    const firstInterruption = first.body.interruption as RunResponse['interruption'];
    expect(first.body).toEqual({
      output: 'For how many people?',
      agent: 'booking',
      conversation_id: conversationId,
      interruption: { question: 'For how many people?', task_id: expect.any(String) },
    });
    const second = await postRun(app, {
      agent_name: 'booking',
      input: '4',
      conversation_id: conversationId,
    });
    expect(second.body).toEqual({
      output: 'What time? (HH:MM)',
      agent: 'booking',
      conversation_id: conversationId,
      interruption: { question: 'What time? (HH:MM)', task_id: firstInterruption?.task_id },
    });
    const third = await postRun(app, {
      agent_name: 'booking',
      input: [{ role: 'user', content: '19:30' }],
      conversation_id: conversationId,
    });
    expect(third.body).toEqual({
      output: 'Booked a table for 4 at 19:30.',
      agent: 'booking',
      conversation_id: conversationId,
    });
    const task = await store.get(firstInterruption?.task_id ?? '');
    expect(task?.status).toBe('completed');
    // The state the agent paused with never reaches the caller.
    expect(JSON.stringify([first.body, second.body])).not.toContain('step');
  });

  it('lets the assistant recall earlier messages within a conversation_id and not across two', async () => {
    const { app } = appOf();
    const first = await postRun(app, { agent_name: 'assistant', input: 'my name is Ada' });
    const conversationId = first.body.conversation_id as string;
    await postRun(app, {
      agent_name: 'assistant',
      input: 'what is 2 + 3',
      conversation_id: conversationId,
    });
    const recall = await postRun(app, {
      agent_name: 'assistant',
      input: 'what did I say?',
      conversation_id: conversationId,
    });
    expect(recall.body.output).toBe('my name is Ada\nwhat is 2 + 3');
    const other = await postRun(app, { agent_name: 'assistant', input: 'what did I say?' });
    expect(other.body.output).toBe('You have not said anything yet.');
    expect(other.body.conversation_id).not.toBe(conversationId);
    const named = await postRun(app, {
      agent_name: 'assistant',
      input: 'what did I say?',
      conversation_id: 'a-new-one',
    });
    expect(named.body).toMatchObject({
      output: 'You have not said anything yet.',
      conversation_id: 'a-new-one',
    });
  });

  it('hands the parts of the last input item to the agent (describe the parts)', async () => {
    const { app } = appOf();
    const { status, body } = await postRun(app, {
      agent_name: 'assistant',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'describe the parts' },
            { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
            { type: 'input_image', image_url: 'https://example.com/cat.png' },
            { type: 'input_file', file_data: 'aGVsbG8=', filename: 'hello.txt' },
          ],
        },
      ],
    });
    expect(status).toBe(200);
    expect(body.output).toBe(
      [
        'text text/plain 18 bytes',
        'file image/png 8 bytes',
        'file image/png at https://example.com/cat.png',
        'file text/plain 5 bytes',
      ].join('\n'),
    );
  });

  it('gives the run the earlier input items as its history', async () => {
    const { app } = appOf();
    const { body } = await postRun(app, {
      agent_name: 'assistant',
      input: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [{ type: 'input_text', text: 'I like tea' }] },
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Noted.' }],
        },
        { role: 'user', content: 'what did I say?' },
      ],
    });
    expect(body.output).toBe('be brief\nI like tea');
    // The items joined the conversation: the next run of it recalls them, and the question.
    const next = await postRun(app, {
      agent_name: 'assistant',
      input: 'what did I say?',
      conversation_id: body.conversation_id,
    });
    expect(next.body.output).toBe('be brief\nI like tea\nwhat did I say?');
  });

  it.each([
    [
      [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
        { role: 'user', content: [{ type: 'input_audio' }] },
      ],
      'input.2.content.0.type',
    ],
    [[{ type: 'function_call_output', output: 'x' }], 'input.0.type'],
    [
      [{ role: 'user', content: [{ type: 'input_file', file_data: '%%%' }] }],
      'input.0.content.0.file_data',
    ],
    [[], 'input'],
  ])('answers 400 invalid_input naming the field for %j', async (input, field) => {
    const { app } = appOf();
    const { status, body } = await postRun(app, { agent_name: 'assistant', input });
    expect(status).toBe(400);
    const error = body.error as { code: string; message: string };
    expect(error.code).toBe('invalid_input');
    expect(error.message.startsWith(`${field}: `)).toBe(true);
  });

  it('answers 400 for a conversation_id that is not a non-empty string', async () => {
    const { app } = appOf();
    const { status, body } = await postRun(app, {
      agent_name: 'assistant',
      input: 'hi',
      conversation_id: '',
    });
    expect(status).toBe(400);
    expect((body.error as { message: string }).message).toBe('conversation_id: must not be empty');
  });

  it("answers 404 context_not_found for another agent's conversation, with or without items", async () => {
    const { app } = appOf();
    const booking = await postRun(app, { agent_name: 'booking', input: 'hi' });
    for (const input of [
      'what did I say?',
      [
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ],
    ]) {
      const { status, body } = await postRun(app, {
        agent_name: 'assistant',
        input,
        conversation_id: booking.body.conversation_id,
      });
      expect(status).toBe(404);
      expect((body.error as { code: string }).code).toBe('context_not_found');
    }
  });

  it('answers 409 task_not_waiting to the second of two answers racing for one paused task', async () => {
    const { app } = appOf();
    const first = await postRun(app, { agent_name: 'booking', input: 'hi' });
    const answer = {
      agent_name: 'booking',
      input: '2',
      conversation_id: first.body.conversation_id,
    };
    const results = await Promise.all([postRun(app, answer), postRun(app, answer)]);
    expect(results.map((result) => result.status).sort()).toEqual([200, 409]);
    const refused = results.find((result) => result.status === 409);
    expect(refused?.body.error).toMatchObject({ code: 'task_not_waiting' });
    const answered = results.find((result) => result.status === 200);
    expect(answered?.body.output).toBe('What time? (HH:MM)');
  });
});

describe('Runner.run of a paused run', () => {
  it("reports the tool calls and handoff of the turn that answers it, from the task's log", async () => {
    const double = defineTool({
      name: 'double',
      parameters: z.object({ n: z.number() }),
      execute: ({ n }) => n * 2,
    });
    const leaf = defineAgent({
      name: 'leaf',
      async *run(input) {
        yield { type: 'text-delta', delta: `leaf got ${input}` };
      },
    });
    const approver = defineAgent({
      name: 'approver',
      tools: [double],
      handoffs: [leaf],
      async *run(input, context) {
        if (context.resumeState === undefined) {
          yield* context.callTool(double, { n: 1 });
          return inputRequired('Approve?', { state: 'asked' });
        }
        const doubled = yield* context.callTool(double, { n: 21 });
        return yield* context.handoff(leaf, `${input} ${doubled}`);
      },
    });
    const runner = createRunner({ agents: [approver] });
    const first = await runner.run({ agent_name: 'approver', input: 'go' });
    expect(first).toEqual({
      output: 'Approve?',
      agent: 'approver',
      tool_calls: [{ name: 'double', input: '{"n":1}', output: '2' }],
      conversation_id: expect.any(String),
      interruption: { question: 'Approve?', task_id: expect.any(String) },
    });
    const second = await runner.run({
      agent_name: 'approver',
      input: 'yes',
      conversation_id: first.conversation_id,
    });
    expect(second).toEqual({
      output: 'leaf got yes 42',
      agent: 'leaf',
      tool_calls: [{ name: 'double', input: '{"n":21}', output: '42' }],
      conversation_id: first.conversation_id,
    });
  });

  it('is answered through a Runner made again over the same stores (as the gateway does)', async () => {
    const store = createMemoryTaskStore();
    const conversations = createMemoryConversationStore();
    const options = { agents: [createBookingAgent()], store, conversations };
    const first = await createRunner(options).run({ agent_name: 'booking', input: 'hi' });
    const again = createRunner(options);
    // One task runner per agent and stores, whichever Runner asks: no listener per Runner made.
    expect(again.taskRunnerOf?.('booking')).toBe(createRunner(options).taskRunnerOf?.('booking'));
    const answer = { agent_name: 'booking', conversation_id: first.conversation_id };
    await expect(again.run({ ...answer, input: '3' })).resolves.toMatchObject({
      interruption: { question: 'What time? (HH:MM)', task_id: first.interruption?.task_id },
    });
    await expect(again.run({ ...answer, input: '12:00' })).resolves.toEqual({
      output: 'Booked a table for 3 at 12:00.',
      agent: 'booking',
      conversation_id: first.conversation_id,
    });
  });

  it('starts over in a Runner of its own stores, which never saw the conversation', async () => {
    const first = await createRunner({ agents: [createBookingAgent()] }).run({
      agent_name: 'booking',
      input: 'hi',
    });
    const other = await createRunner({ agents: [createBookingAgent()] }).run({
      agent_name: 'booking',
      input: '3',
      conversation_id: first.conversation_id,
    });
    expect(other.output).toBe('For how many people?');
  });
});
