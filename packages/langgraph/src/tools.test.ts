import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { createReactAgent, ToolNode } from '@langchain/langgraph/prebuilt';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { fromLangGraph } from './index.ts';
import { ScriptedChatModel } from './test-support/scripted-chat-model.ts';

const weather = tool(async ({ city }) => ({ city, degrees: 21 }), {
  name: 'weather',
  description: 'The weather in a city',
  schema: z.object({ city: z.string().describe('The city') }),
});

const time = tool(async () => '12:00', {
  name: 'time',
  description: 'The time',
  schema: z.object({}),
});

describe('the tools of fromLangGraph', () => {
  it("lists a react agent's tools with the JSON Schema of their input, and runs them", async () => {
    const llm = new ScriptedChatModel(() => ({ text: ['ok'] }));
    const agent = fromLangGraph(createReactAgent({ llm, tools: [weather, time] }), {
      name: 'tools',
    });
    expect(agent.tools.map((listed) => listed.name)).toEqual(['weather', 'time']);
    const [listed] = agent.tools;
    expect(listed?.description).toBe('The weather in a city');
    expect(listed?.parameters).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string', description: 'The city' } },
      required: ['city'],
    });
    expect(listed?.parameters).not.toHaveProperty('$schema');
    await expect(listed?.execute({ city: 'Oslo' })).resolves.toEqual({ city: 'Oslo', degrees: 21 });
  });

  it('lists the tools of the ToolNode of a StateGraph, each once', () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('tools', new ToolNode([weather, time]))
      .addNode('more', new ToolNode([weather]))
      .addEdge('__start__', 'tools')
      .addEdge('tools', 'more')
      .compile();
    expect(fromLangGraph(graph, { name: 'graph' }).tools.map((listed) => listed.name)).toEqual([
      'weather',
      'time',
    ]);
  });

  it('lists the tools of options.tools instead, for a graph whose nodes hide them', () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async () => ({ messages: [new AIMessage('hi')] }))
      .addEdge('__start__', 'agent')
      .compile();
    expect(fromLangGraph(graph, { name: 'hidden' }).tools).toEqual([]);
    const agent = fromLangGraph(graph, { name: 'hidden', tools: [time] });
    expect(agent.tools.map((listed) => listed.name)).toEqual(['time']);
    expect(agent.tools[0]?.parameters).toMatchObject({ type: 'object', properties: {} });
  });

  it('streams a StateGraph whose node returns an AI message it made itself', async () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async () => ({ messages: [new AIMessage('made by hand')] }))
      .addEdge('__start__', 'agent')
      .compile();
    await expect(fromLangGraph(graph, { name: 'hand' }).invoke('Hi')).resolves.toBe('made by hand');
  });

  it('reports a tool call and its result once when a later node hands the messages on again', async () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async () => ({
        messages: [
          new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'time', args: {} }] }),
          new ToolMessage({ content: '12:00', tool_call_id: 'c1', name: 'time' }),
        ],
      }))
      .addNode('echo', async (state) => ({ messages: state.messages }))
      .addEdge('__start__', 'agent')
      .addEdge('agent', 'echo')
      .compile();
    const types = [];
    for await (const event of fromLangGraph(graph, { name: 'echo' }).stream('Hi')) {
      types.push(event.type);
    }
    expect(types).toEqual(['tool-call', 'tool-result', 'done']);
  });
});
