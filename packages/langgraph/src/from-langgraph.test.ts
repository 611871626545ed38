import { type AgentEvent, AgentFailureError, createTaskRunner, textOf } from '@agentport/core';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { interrupt, MemorySaver, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { fromLangGraph } from './index.ts';
import { ScriptedChatModel } from './test-support/scripted-chat-model.ts';

const weather = tool(async ({ city }) => ({ city, degrees: 21 }), {
  name: 'weather',
  description: 'The weather in a city',
  schema: z.object({ city: z.string() }),
});

const book = tool(
  async ({ room }) => {
    const answer = interrupt(`Shall I book the ${room} room?`);
    return answer === 'yes' ? `Booked ${room}` : `Not booked: ${JSON.stringify(answer)}`;
  },
  { name: 'book', description: 'Books a room', schema: z.object({ room: z.string() }) },
);

/** The type and text of each message a model call was given. */
function transcript(messages: readonly BaseMessage[]): string[] {
  return messages.map((message) => `${message.type}: ${message.text}`);
}

/** A model that calls `toolName` once for the newest human message, then answers with its result. */
function toolThenAnswer(toolName: string, args: Record<string, unknown>) {
  return new ScriptedChatModel((messages) => {
    const last = messages.at(-1);
    if (last?.type === 'human') {
      return { toolCalls: [{ id: `call-${messages.length}`, name: toolName, args }] };
    }
    return { text: ['Result: ', last?.text ?? ''] };
  });
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('fromLangGraph', () => {
  it("streams the model's tokens as text-delta events and ends with their text", async () => {
    const llm = new ScriptedChatModel(() => ({ text: ['Hello', ' there', '!'] }));
    const agent = fromLangGraph(createReactAgent({ llm, tools: [] }), { name: 'greeter' });
    expect(await collect(agent.stream('Hi'))).toEqual([
      { type: 'text-delta', delta: 'Hello' },
      { type: 'text-delta', delta: ' there' },
      { type: 'text-delta', delta: '!' },
      { type: 'done', output: 'Hello there!' },
    ]);
  });

  it('reports a tool call and its result as tool-call and tool-result events', async () => {
    const graph = createReactAgent({
      llm: toolThenAnswer('weather', { city: 'Paris' }),
      tools: [weather],
    });
    const events = await collect(fromLangGraph(graph, { name: 'weather' }).stream('Weather?'));
    expect(events).toEqual([
      { type: 'tool-call', id: 'call-1', name: 'weather', input: { city: 'Paris' } },
      {
        type: 'tool-result',
        id: 'call-1',
        name: 'weather',
        output: { city: 'Paris', degrees: 21 },
      },
      { type: 'text-delta', delta: 'Result: ' },
      { type: 'text-delta', delta: '{"city":"Paris","degrees":21}' },
      { type: 'done', output: 'Result: {"city":"Paris","degrees":21}' },
    ]);
  });

  it('reports a tool that throws as a tool result with an error output, without its message', async () => {
    const broken = tool(
      async (): Promise<string> => {
        throw new Error('secret-token-123');
      },
      { name: 'broken', description: 'Fails', schema: z.object({}) },
    );
    const graph = createReactAgent({ llm: toolThenAnswer('broken', {}), tools: [broken] });
    const events = await collect(fromLangGraph(graph, { name: 'broken' }).stream('Go'));
    expect(events[1]).toEqual({
      type: 'tool-result',
      id: 'call-1',
      name: 'broken',
      output: { error: "Tool 'broken' failed" },
    });
    expect(JSON.stringify(events.slice(0, 2))).not.toContain('secret-token-123');
  });

  it('keeps a conversation in the thread named by its contextId when the graph has a checkpointer', async () => {
    const llm = new ScriptedChatModel((messages) => ({ text: [`answer ${messages.length}`] }));
    const checkpointer = new MemorySaver();
    const graph = createReactAgent({ llm, tools: [], checkpointer });
    const runner = createTaskRunner({ agent: fromLangGraph(graph, { name: 'memory' }) });
    const first = await runner.submitAndWait('My name is Ada');
    const second = await runner.submitAndWait('What is my name?', { contextId: first.contextId });
    expect(second.output).toBe('answer 3');
    expect(transcript(llm.calls[1]?.messages ?? [])).toEqual([
      'human: My name is Ada',
      'ai: answer 1',
      'human: What is my name?',
    ]);
    const thread = await graph.getState({ configurable: { thread_id: first.contextId } });
    expect((thread.values as { messages: unknown[] }).messages).toHaveLength(4);
    await runner.close();
  });

  it("gives a graph without a checkpointer the conversation's history and the new message's parts", async () => {
    const llm = new ScriptedChatModel((messages) => ({ text: [`answer ${messages.length}`] }));
    const runner = createTaskRunner({
      agent: fromLangGraph(createReactAgent({ llm, tools: [] }), { name: 'stateless' }),
    });
    const first = await runner.submitAndWait('My name is Ada');
    await runner.submitAndWait(
      {
        messageId: 'm2',
        role: 'user',
        parts: [
          { kind: 'text', text: 'What is my name?' },
          { kind: 'data', data: { hint: 'short' } },
          { kind: 'file', mediaType: 'image/png', name: 'a.png', bytes: 'aGk=' },
        ],
      },
      { contextId: first.contextId },
    );
    const messages = llm.calls[1]?.messages ?? [];
    expect(transcript(messages.slice(0, 2))).toEqual(['human: My name is Ada', 'ai: answer 1']);
    expect(messages[2]).toBeInstanceOf(HumanMessage);
    expect(messages[2]?.content).toEqual([
      { type: 'text', text: 'What is my name?' },
      { type: 'text', text: '{"hint":"short"}' },
      { type: 'image', data: 'aGk=', mimeType: 'image/png', metadata: { filename: 'a.png' } },
    ]);
    await runner.close();
  });

  it('pauses at interrupt() with its question and resumes the thread with the answer', async () => {
    const graph = createReactAgent({
      llm: toolThenAnswer('book', { room: 'blue' }),
      tools: [book],
      checkpointer: new MemorySaver(),
    });
    const runner = createTaskRunner({ agent: fromLangGraph(graph, { name: 'booking' }) });
    const paused = await runner.submitAndWait('Book the blue room');
    expect(paused.status).toBe('input-required');
    expect(textOf(paused.statusMessage?.parts ?? [])).toBe('Shall I book the blue room?');
    expect(paused.inputRequest?.state).toMatchObject({ threadId: paused.contextId });
    const done = await runner.resumeAndWait(paused.id, 'yes');
    expect(done.status).toBe('completed');
    expect(done.output).toBe('Result: Booked blue');
    await runner.close();
  });

  it("resumes with a data part's data, and asks an object interrupt's question", async () => {
    const choose = tool(
      async () => {
        const answer = interrupt({ question: 'Which room?', rooms: ['blue', 'red'] });
        return `Chose ${(answer as { room: string }).room}`;
      },
      { name: 'choose', description: 'Chooses a room', schema: z.object({}) },
    );
    const graph = createReactAgent({
      llm: toolThenAnswer('choose', {}),
      tools: [choose],
      checkpointer: new MemorySaver(),
    });
    const agent = fromLangGraph(graph, { name: 'chooser' });
    const events = await collect(agent.stream('Pick one'));
    const pause = events.at(-1);
    expect(pause).toMatchObject({
      type: 'input-required',
      question: [
        { kind: 'text', text: 'Which room?' },
        { kind: 'data', data: { question: 'Which room?', rooms: ['blue', 'red'] } },
      ],
    });
    const answer = {
      messageId: 'a',
      role: 'user' as const,
      parts: [{ kind: 'data' as const, data: { room: 'red' } }],
    };
    const state = pause?.type === 'input-required' ? pause.state : undefined;
    await expect(agent.invoke(answer, { resumeState: state })).resolves.toBe('Result: Chose red');
  });

  it('fails an interrupt of a graph compiled without a checkpointer, saying it needs one', async () => {
    const graph = createReactAgent({
      llm: toolThenAnswer('book', { room: 'blue' }),
      tools: [book],
    });
    const agent = fromLangGraph(graph, { name: 'forgetful' });
    const events = await collect(agent.stream('Book the blue room'));
    expect(events.at(-1)).toEqual({
      type: 'error',
      code: 'agent_failure',
      message: expect.stringMatching(/compiled without a checkpointer: compile it with one/),
    });
    const failure = await agent.invoke('Book the blue room').catch((error: unknown) => error);
    expect(AgentFailureError.isInstance(failure)).toBe(true);
  });

  it("passes the caller's abort to the model call's signal", async () => {
    let started: () => void = () => undefined;
    const calling = new Promise<void>((resolve) => {
      started = resolve;
    });
    const llm = new ScriptedChatModel(async (_messages, signal) => {
      started();
      await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
      return { text: ['too late'] };
    });
    const agent = fromLangGraph(createReactAgent({ llm, tools: [] }), { name: 'slow' });
    const controller = new AbortController();
    const events = collect(agent.stream('Go', { signal: controller.signal }));
    await calling;
    controller.abort();
    expect((await events).at(-1)).toMatchObject({ type: 'error', code: 'canceled' });
    expect(llm.calls[0]?.signal?.aborted).toBe(true);
  });

  it('fails the run as agent_failure when the model fails, without its error', async () => {
    const llm = new ScriptedChatModel(() => {
      throw new Error('401 invalid api key sk-live-abc');
    });
    const agent = fromLangGraph(createReactAgent({ llm, tools: [] }), { name: 'failing' });
    expect(await collect(agent.stream('Go'))).toEqual([
      { type: 'error', code: 'agent_failure', message: "Agent 'failing' failed" },
    ]);
    const failure = await agent.invoke('Go').catch((error: unknown) => error);
    expect(AgentFailureError.isInstance(failure)).toBe(true);
    expect((failure as AgentFailureError).message).not.toContain('sk-live');
    expect(((failure as AgentFailureError).cause as Error).message).toContain('sk-live');
  });

  it('fails a resume whose thread no longer waits for the answer, rather than rerunning the graph', async () => {
    const llm = new ScriptedChatModel(() => ({ text: ['from the start'] }));
    const graph = createReactAgent({ llm, tools: [], checkpointer: new MemorySaver() });
    const agent = fromLangGraph(graph, { name: 'lost' });
    const resumeState = { threadId: 'forgotten', interruptId: 'c4ca4238a0b923820dcc509a6f75849b' };
    expect(await collect(agent.stream('yes', { resumeState }))).toEqual([
      {
        type: 'error',
        code: 'agent_failure',
        message: "Agent 'lost' cannot resume: its graph's thread no longer waits for this answer",
      },
    ]);
    expect(llm.calls).toHaveLength(0);
  });

  it("gives an interrupt's response schema, and asks again when a node's answer does not match it", async () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('ask', async () => {
        const answer = interrupt('Which room?', { responseSchema: z.object({ room: z.string() }) });
        return { messages: [new AIMessage(`Chose ${answer.room}`)] };
      })
      .addEdge('__start__', 'ask')
      .compile({ checkpointer: new MemorySaver() });
    const runner = createTaskRunner({ agent: fromLangGraph(graph, { name: 'schema' }) });
    const paused = await runner.submitAndWait('Pick a room');
    expect(paused.inputRequest?.schema).toEqual({
      type: 'object',
      properties: { room: { type: 'string' } },
      required: ['room'],
      additionalProperties: false,
    });
    const again = await runner.resumeAndWait(paused.id, 'the red one');
    expect(again.status).toBe('input-required');
    expect(textOf(again.statusMessage?.parts ?? [])).toBe('Which room?');
    const answer = {
      messageId: 'a',
      role: 'user' as const,
      parts: [{ kind: 'data' as const, data: { room: 'red' } }],
    };
    const done = await runner.resumeAndWait(paused.id, answer);
    expect(done).toMatchObject({ status: 'completed', output: 'Chose red' });
    await runner.close();
  });
});
