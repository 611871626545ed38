import { AgentFailureError, createTaskRunner } from '@agentport/core';
import { ToolLoopAgent, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { fromAiSdk } from './index.ts';
import { type StreamPart, textAnswer, toolCallAnswer } from './test-support/mock-answers.ts';

const weather = tool({
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, degrees: 21 }),
});

describe('fromAiSdk', () => {
  it('streams an answer with a tool call as text-delta, tool-call and tool-result events', async () => {
    const model = new MockLanguageModelV4({
      doStream: [toolCallAnswer('weather', { city: 'Paris' }), textAnswer('It is ', '21 degrees')],
    });
    const agent = fromAiSdk(new ToolLoopAgent({ id: 'weather', model, tools: { weather } }));
    const events = [];
    for await (const event of agent.stream('Weather in Paris?')) events.push(event);
    expect(events).toEqual([
      { type: 'tool-call', id: 'call-1', name: 'weather', input: { city: 'Paris' } },
      {
        type: 'tool-result',
        id: 'call-1',
        name: 'weather',
        output: { city: 'Paris', degrees: 21 },
      },
      { type: 'text-delta', delta: 'It is ' },
      { type: 'text-delta', delta: '21 degrees' },
      { type: 'done', output: 'It is 21 degrees' },
    ]);
  });

  it('lists the AI SDK tools as its own, with the JSON Schema of their input', async () => {
    const agent = fromAiSdk(
      new ToolLoopAgent({ id: 'weather', model: new MockLanguageModelV4(), tools: { weather } }),
    );
    const [listed] = agent.tools;
    expect(listed?.name).toBe('weather');
    expect(listed?.description).toBe('The weather in a city');
    expect(listed?.parameters).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    });
    await expect(listed?.execute({ city: 'Oslo' })).resolves.toEqual({ city: 'Oslo', degrees: 21 });
  });

  it('reports a tool that throws as a tool result with an error output, without its message', async () => {
    const broken = tool({
      inputSchema: z.object({}),
      execute: async (): Promise<string> => {
        throw new Error('secret-token-123');
      },
    });
    const model = new MockLanguageModelV4({
      doStream: [toolCallAnswer('broken', {}), textAnswer('Sorry')],
    });
    const agent = fromAiSdk(new ToolLoopAgent({ id: 'broken', model, tools: { broken } }));
    const events = [];
    for await (const event of agent.stream('Go')) events.push(event);
    expect(events[1]).toEqual({
      type: 'tool-result',
      id: 'call-1',
      name: 'broken',
      output: { error: "Tool 'broken' failed" },
    });
    expect(JSON.stringify(events)).not.toContain('secret-token-123');
  });

  it('keeps the history of a multi-turn conversation and passes the new message parts', async () => {
    const model = new MockLanguageModelV4({
      doStream: [textAnswer('Hello Ada'), textAnswer('Your name is Ada')],
    });
    const agent = fromAiSdk(new ToolLoopAgent({ id: 'memory', model }));
    const runner = createTaskRunner({ agent });
    const first = await runner.submitAndWait('My name is Ada');
    const second = await runner.submitAndWait(
      {
        messageId: 'm2',
        role: 'user',
        parts: [
          { kind: 'text', text: 'What is my name?' },
          { kind: 'data', data: { hint: 'short' } },
          { kind: 'file', mediaType: 'text/plain', name: 'a.txt', bytes: 'aGk=' },
        ],
      },
      { contextId: first.contextId },
    );
    expect(second.output).toBe('Your name is Ada');
    const prompt = model.doStreamCalls[1]?.prompt;
    expect(prompt?.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(prompt?.[0]?.content).toEqual([{ type: 'text', text: 'My name is Ada' }]);
    expect(prompt?.[1]?.content).toEqual([{ type: 'text', text: 'Hello Ada' }]);
    expect(prompt?.[2]?.content).toMatchObject([
      { type: 'text', text: 'What is my name?' },
      { type: 'text', text: '{"hint":"short"}' },
      { type: 'file', mediaType: 'text/plain', filename: 'a.txt' },
    ]);
    await runner.close();
  });

  it("passes the caller's abort to the model's abort signal", async () => {
    let modelSignal: AbortSignal | undefined;
    const model = new MockLanguageModelV4({
      doStream: async ({ abortSignal }) => {
        modelSignal = abortSignal;
        const stream = new ReadableStream<StreamPart>({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            controller.enqueue({ type: 'text-start', id: 't' });
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'thinking' });
          },
        });
        return { stream };
      },
    });
    const agent = fromAiSdk(new ToolLoopAgent({ id: 'slow', model }));
    const controller = new AbortController();
    const events = [];
    for await (const event of agent.stream('Go', { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    expect(modelSignal?.aborted).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'canceled' });
  });

  it('fails the run as agent_failure when the model fails, without the provider error', async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => {
        throw new Error('401 invalid api key sk-live-abc in {"prompt":"secret"}');
      },
    });
    const agent = fromAiSdk(new ToolLoopAgent({ id: 'failing', model, maxRetries: 0 }));
    const events = [];
    for await (const event of agent.stream('Go')) events.push(event);
    expect(events).toEqual([
      { type: 'error', code: 'agent_failure', message: "Agent 'failing' failed" },
    ]);
    const failure = await agent.invoke('Go').catch((error: unknown) => error);
    expect(AgentFailureError.isInstance(failure)).toBe(true);
    expect((failure as AgentFailureError).message).not.toContain('sk-live');
  });

  it('takes its name from the options, and refuses an agent with neither id nor name', () => {
    const model = new MockLanguageModelV4();
    expect(fromAiSdk(new ToolLoopAgent({ model }), { name: 'named' }).name).toBe('named');
    expect(() => fromAiSdk(new ToolLoopAgent({ model }))).toThrow(/needs a name/);
  });
});
