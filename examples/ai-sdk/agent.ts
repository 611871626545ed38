import { fromAiSdk } from '@agentport/ai-sdk';
import { stepCountIs, ToolLoopAgent, tool } from 'ai';
import { MockLanguageModelV4, simulateReadableStream } from 'ai/test';
import { z } from 'zod';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

// A mock model, so the example runs without a key: it calls the tool, then answers. Put your
// provider's model here instead, e.g. `openai('gpt-5')` of `@ai-sdk/openai`.
const model = new MockLanguageModelV4({
  doStream: async ({ prompt }) => {
    if (prompt.at(-1)?.role === 'tool') {
      return {
        stream: simulateReadableStream({
          chunks: [
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'It is 21 degrees ' },
            { type: 'text-delta', id: 't', delta: 'in Paris.' },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage },
          ],
        }),
      };
    }
    return {
      stream: simulateReadableStream({
        chunks: [
          {
            type: 'tool-call',
            toolCallId: crypto.randomUUID(),
            toolName: 'weather',
            input: '{"city":"Paris"}',
          },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage },
        ],
      }),
    };
  },
});

const weather = tool({
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, degrees: 21 }),
});

/** The AI SDK agent, as you would write it for your app. */
const aiSdkAgent = new ToolLoopAgent({
  id: 'weather',
  model,
  instructions: 'You tell the weather.',
  tools: { weather },
  stopWhen: stepCountIs(5),
});

/** The same agent, served by AgentPort: its tools listed, its stream as events. */
export const weatherAgent = fromAiSdk(aiSdkAgent, { description: 'Tells the weather' });
