import { fromLangGraph } from '@agentport/langgraph';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';

const weather = tool(async ({ city }) => JSON.stringify({ city, degrees: 21 }), {
  name: 'weather',
  description: 'The weather in a city',
  schema: z.object({ city: z.string() }),
});

// A stand-in for the model node, so the example runs without a key: it calls the tool, then
// answers. With a real chat model: `await llm.bindTools([weather]).invoke(state.messages)`.
function model(state: typeof MessagesAnnotation.State) {
  const last = state.messages.at(-1);
  if (last instanceof ToolMessage) {
    const { degrees } = JSON.parse(String(last.content)) as { degrees: number };
    return { messages: [new AIMessage(`It is ${degrees} degrees in Paris.`)] };
  }
  const call = { id: crypto.randomUUID(), name: 'weather', args: { city: 'Paris' } };
  return { messages: [new AIMessage({ content: '', tool_calls: [call] })] };
}

/** The graph, as you would write it for your app; the checkpointer keeps each conversation. */
const graph = new StateGraph(MessagesAnnotation)
  .addNode('model', model)
  .addNode('tools', new ToolNode([weather]))
  .addEdge(START, 'model')
  .addConditionalEdges('model', toolsCondition, ['tools', END])
  .addEdge('tools', 'model')
  .compile({ checkpointer: new MemorySaver() });

/** The same graph, served by AgentPort: its tools listed, its stream as events. */
export const weatherAgent = fromLangGraph(graph, {
  name: 'weather',
  description: 'Tells the weather',
});
