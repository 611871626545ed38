import { createTaskRunner, InvalidInputError } from '@agentport/core';
import { stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { fromAiSdk, type StreamTextSettings } from './index.ts';
import { textAnswer, toolCallAnswer } from './test-support/mock-answers.ts';

const weather = tool({
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, degrees: 21 }),
});

describe('fromAiSdk with the settings of streamText', () => {
  it('streams each run through streamText with the settings, the system prompt and the tools', async () => {
    const model = new MockLanguageModelV4({
      doStream: [toolCallAnswer('weather', { city: 'Paris' }), textAnswer('Sunny, ', '21')],
    });
    const agent = fromAiSdk(
      { model, system: 'Answer briefly', tools: { weather }, stopWhen: stepCountIs(3) },
      { name: 'brief', description: 'Brief weather' },
    );
    expect(agent.name).toBe('brief');
    expect(agent.tools.map((listed) => listed.name)).toEqual(['weather']);
    const events = [];
    for await (const event of agent.stream('Weather in Paris?')) events.push(event.type);
    expect(events).toEqual(['tool-call', 'tool-result', 'text-delta', 'text-delta', 'done']);
    expect(model.doStreamCalls[0]?.prompt[0]).toEqual({
      role: 'system',
      content: 'Answer briefly',
    });
  });

  it('keeps the conversation of a context from one run to the next', async () => {
    const model = new MockLanguageModelV4({ doStream: [textAnswer('Hi Ada'), textAnswer('Ada')] });
    const runner = createTaskRunner({ agent: fromAiSdk({ model }, { name: 'memory' }) });
    const first = await runner.submitAndWait('My name is Ada');
    await runner.submitAndWait('Who am I?', { contextId: first.contextId });
    expect(model.doStreamCalls[1]?.prompt.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
    await runner.close();
  });

  it('pauses for a tool that needs approval and runs it once approved', async () => {
    const booked: string[] = [];
    const book = tool({
      inputSchema: z.object({ room: z.string() }),
      needsApproval: true,
      execute: async ({ room }) => {
        booked.push(room);
        return 'booked';
      },
    });
    const model = new MockLanguageModelV4({
      doStream: [toolCallAnswer('book', { room: 'blue' }), textAnswer('Booked')],
    });
    const runner = createTaskRunner({
      agent: fromAiSdk({ model, tools: { book }, stopWhen: stepCountIs(3) }, { name: 'rooms' }),
    });
    const paused = await runner.submitAndWait('Book the blue room');
    expect(paused.status).toBe('input-required');
    const done = await runner.resumeAndWait(paused.id, 'yes');
    expect(done).toMatchObject({ status: 'completed', output: 'Booked' });
    expect(booked).toEqual(['blue']);
    await runner.close();
  });

  it('refuses settings without a name, or that bring a prompt or messages of their own', () => {
    const model = new MockLanguageModelV4();
    const unnamed = () => fromAiSdk({ model }, {} as { name: string });
    expect(unnamed).toThrow(/needs a name/);
    const prompted = () =>
      fromAiSdk({ model, prompt: 'Hi' } as StreamTextSettings, { name: 'prompted' });
    expect(prompted).toThrow(InvalidInputError);
    expect(prompted).toThrow(/without prompt or messages/);
  });
});
