import { fromOpenAIAgent } from '@agentport/openai-agents';
import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  type StreamEvent,
  tool,
  Usage,
} from '@openai/agents';
import { assistantMessage, functionCall } from '@openai/agents/testing';
import { z } from 'zod';

const usage = { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 };

// A stand-in model, so the example runs without a key: it calls the tool, then answers. Leave the
// agent's `model` out (or name one, 'gpt-5') and set OPENAI_API_KEY to use OpenAI's instead.
class WeatherModel implements Model {
  #output(request: ModelRequest) {
    const last = typeof request.input === 'string' ? undefined : request.input.at(-1);
    return last?.type === 'function_call_result'
      ? [assistantMessage('It is 21 degrees in Paris.')]
      : [functionCall('weather', { city: 'Paris' }, { callId: crypto.randomUUID() })];
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    return { usage: new Usage(usage), output: this.#output(request) };
  }

  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const output = this.#output(request);
    yield { type: 'response_started' };
    if (output[0]?.type === 'message') {
      yield { type: 'output_text_delta', delta: 'It is 21 degrees ' };
      yield { type: 'output_text_delta', delta: 'in Paris.' };
    }
    yield { type: 'response_done', response: { id: crypto.randomUUID(), usage, output } };
  }
}

const weather = tool({
  name: 'weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, degrees: 21 }),
});

/** The SDK agent, as you would write it for your app. */
const sdkAgent = new Agent({
  name: 'weather',
  instructions: 'You tell the weather.',
  model: new WeatherModel(),
  tools: [weather],
});

/** The same agent, served by AgentPort: its tools listed, its run streamed as events. */
export const weatherAgent = fromOpenAIAgent(sdkAgent, {
  description: 'Tells the weather',
  runner: new Runner({ tracingDisabled: true }),
});
