import { AgentFailureError, createTaskRunner } from '@agentport/core';
import { Agent, handoff, Runner, tool } from '@openai/agents';
import {
  assistantMessage,
  functionCall,
  modelError,
  modelStream,
  modelStreamResponder,
  ScriptedModel,
} from '@openai/agents/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { fromOpenAIAgent } from './index.ts';

const runner = new Runner({ tracingDisabled: true });
const usage = { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** One streamed model answer of `words` as text deltas. */
function streamedText(...words: string[]) {
  return modelStream([
    { type: 'response_started' },
    ...words.map((delta) => ({ type: 'output_text_delta' as const, delta })),
    {
      type: 'response_done',
      response: { id: 'r-text', usage, output: [assistantMessage(words.join(''))] },
    },
  ]);
}

const weather = tool({
  name: 'weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, degrees: 21 }),
});

describe('fromOpenAIAgent', () => {
  it('streams a tool call, its output and the answer as tool-call, tool-result and text-delta events', async () => {
    const model = new ScriptedModel([
      [functionCall('weather', { city: 'Paris' }, { callId: 'call-1' })],
      streamedText('It is ', '21 degrees'),
    ]);
    const agent = fromOpenAIAgent(new Agent({ name: 'weather', model, tools: [weather] }), {
      runner,
    });
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

  it('lists the function tools as its own, with the JSON Schema of their parameters', async () => {
    const agent = fromOpenAIAgent(new Agent({ name: 'weather', tools: [weather] }));
    const [listed] = agent.tools;
    expect(listed?.name).toBe('weather');
    expect(listed?.description).toBe('The weather in a city');
    expect(listed?.parameters).toEqual({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    });
    await expect(listed?.execute({ city: 'Oslo' })).resolves.toEqual({ city: 'Oslo', degrees: 21 });
  });

  it('reports a handoff as a handoff event and lists the handed-to agents, cycles included', async () => {
    const model = new ScriptedModel([
      [functionCall('transfer_to_Billing_Agent', {}, { callId: 'call-h' })],
      streamedText('Billing here'),
    ]);
    const billing = new Agent({ name: 'Billing Agent', handoffDescription: 'Pays bills', model });
    const refunds = new Agent({ name: 'refunds', model });
    const triage = new Agent({
      name: 'triage',
      model,
      handoffs: [billing, handoff(refunds)],
    });
    billing.handoffs = [triage];
    const agent = fromOpenAIAgent(triage, { runner });
    expect(agent.handoffs.map((target) => [target.name, target.description])).toEqual([
      ['billing-agent', 'Pays bills'],
      ['refunds', undefined],
    ]);
    expect(agent.handoffs[0]?.handoffs).toEqual([agent]);
    const events = [];
    for await (const event of agent.stream('I was charged twice')) events.push(event);
    expect(events).toEqual([
      { type: 'handoff', from: 'triage', to: 'billing-agent' },
      { type: 'text-delta', delta: 'Billing here' },
      { type: 'done', output: 'Billing here' },
    ]);
  });

  it('runs a handed-to agent on its own, as the SDK agent it was made from', async () => {
    const model = new ScriptedModel([[assistantMessage('Billing alone')]]);
    const billing = new Agent({ name: 'billing', model });
    const agent = fromOpenAIAgent(new Agent({ name: 'triage', handoffs: [billing] }), { runner });
    await expect(agent.handoffs[0]?.invoke('Hi')).resolves.toBe('Billing alone');
    expect(model.calls).toHaveLength(1);
  });

  it('answers a structured final output as its JSON', async () => {
    const model = new ScriptedModel([[assistantMessage('{ "city": "Paris", "degrees": 21 }')]]);
    const sdkAgent = new Agent({
      name: 'structured',
      model,
      outputType: z.object({ city: z.string(), degrees: z.number() }),
    });
    const agent = fromOpenAIAgent(sdkAgent, { runner });
    await expect(agent.invoke('Weather?')).resolves.toBe('{"city":"Paris","degrees":21}');
  });

  it('refuses two SDK agents that would get one name', () => {
    const triage = new Agent({
      name: 'triage',
      handoffs: [new Agent({ name: 'Billing' }), new Agent({ name: 'billing' })],
    });
    expect(() => fromOpenAIAgent(triage)).toThrow(/would both be named 'billing'/);
  });

  it('gives the conversation history and the new message parts to the model', async () => {
    const model = new ScriptedModel([[assistantMessage('Hello Ada')], [assistantMessage('Ada')]]);
    const agent = fromOpenAIAgent(new Agent({ name: 'memory', model }), { runner });
    const tasks = createTaskRunner({ agent });
    const first = await tasks.submitAndWait('My name is Ada');
    const second = await tasks.submitAndWait(
      {
        messageId: 'm2',
        role: 'user',
        parts: [
          { kind: 'text', text: 'What is my name?' },
          { kind: 'data', data: { hint: 'short' } },
          { kind: 'file', mediaType: 'image/png', bytes: 'aGk=' },
          { kind: 'file', mediaType: 'text/plain', name: 'a.txt', url: 'https://example.com/a' },
        ],
      },
      { contextId: first.contextId },
    );
    expect(second.output).toBe('Ada');
    expect(model.calls[1]?.request.input).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'My name is Ada' }] },
      {
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Hello Ada' }],
      },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'What is my name?' },
          { type: 'input_text', text: '{"hint":"short"}' },
          { type: 'input_image', image: 'data:image/png;base64,aGk=' },
          { type: 'input_file', file: { url: 'https://example.com/a' }, filename: 'a.txt' },
        ],
      },
    ]);
    await tasks.close();
  });

  it("passes the caller's abort to the model call's signal", async () => {
    let modelSignal: AbortSignal | undefined;
    const model = new ScriptedModel([
      modelStreamResponder(async function* (call) {
        modelSignal = call.request.signal;
        yield { type: 'response_started' };
        yield { type: 'output_text_delta', delta: 'thinking' };
        await new Promise((resolve) => call.request.signal?.addEventListener('abort', resolve));
      }),
    ]);
    const agent = fromOpenAIAgent(new Agent({ name: 'slow', model }), { runner });
    const controller = new AbortController();
    const events = [];
    for await (const event of agent.stream('Go', { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    expect(modelSignal?.aborted).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'canceled' });
  });

  it('fails the run as agent_failure when the model fails, keeping its error as the cause only', async () => {
    const secret = new Error('401 invalid api key sk-live-abc');
    const model = new ScriptedModel([modelError(secret), modelError(secret)]);
    const agent = fromOpenAIAgent(new Agent({ name: 'failing', model }), { runner });
    const events = [];
    for await (const event of agent.stream('Go')) events.push(event);
    expect(events).toEqual([
      { type: 'error', code: 'agent_failure', message: "Agent 'failing' failed" },
    ]);
    const failure = await agent.invoke('Go').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AgentFailureError);
    expect(failure).toMatchObject({ code: 'agent_failure' });
    expect((failure as AgentFailureError).message).not.toContain('sk-live');
    expect((failure as AgentFailureError).cause).toBe(secret);
  });

  it('runs on the given Runner, whose model provider serves an agent without a model', async () => {
    const model = new ScriptedModel([[assistantMessage('From the provider')]]);
    const provided = new Runner({
      tracingDisabled: true,
      modelProvider: { getModel: () => model },
    });
    const agent = fromOpenAIAgent(new Agent({ name: 'plain' }), { runner: provided });
    await expect(agent.invoke('Hi')).resolves.toBe('From the provider');
  });

  it('takes its name, description and model from the options, else from the SDK agent', () => {
    const sdkAgent = new Agent({
      name: 'Weather Bot',
      handoffDescription: 'Weather',
      model: 'gpt-5',
    });
    const derived = fromOpenAIAgent(sdkAgent);
    expect([derived.name, derived.description, derived.model, derived.instructions]).toEqual([
      'weather-bot',
      'Weather',
      'gpt-5',
      undefined,
    ]);
    const named = fromOpenAIAgent(sdkAgent, {
      name: 'forecast',
      description: 'Forecasts',
      instructions: 'Be brief',
      model: 'listed',
    });
    expect([named.name, named.description, named.model, named.instructions]).toEqual([
      'forecast',
      'Forecasts',
      'listed',
      'Be brief',
    ]);
    expect(() => fromOpenAIAgent(new Agent({ name: '???' }))).toThrow(/pass options.name/);
  });
});
