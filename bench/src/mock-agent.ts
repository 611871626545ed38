// The agent of the framework-adapter scenario (issue 34): one AI SDK `ToolLoopAgent` on a mock
// model of `ai/test`, served by AgentPort, by the AI SDK's own route and by Mastra.
import { jsonSchema, type LanguageModel, type Schema, type Tool, ToolLoopAgent, tool } from 'ai';
import { MockLanguageModelV4, simulateReadableStream } from 'ai/test';
import { ADAPTER_AGENT, ADAPTER_TEXT_DELTAS } from './scenarios.ts';

type StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;

/** The tool the model calls first. */
export const MOCK_TOOL_NAME = 'weather';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

const toolCallParts: readonly StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  {
    type: 'tool-call',
    toolCallId: 'call-1',
    toolName: MOCK_TOOL_NAME,
    input: JSON.stringify({ city: 'Paris' }),
  },
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
];

const textParts: readonly StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'text-start', id: 't' },
  ...Array.from(
    { length: ADAPTER_TEXT_DELTAS },
    (_, index): StreamPart => ({ type: 'text-delta', id: 't', delta: `w${index + 1} ` }),
  ),
  { type: 'text-end', id: 't' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
];

/**
 * The mock model: a fresh stream on every call, the tool call while the prompt holds no tool
 * result yet, then the 50 text deltas. No delay at all: `simulateReadableStream`'s default of 0
 * ms is a `setTimeout` per part (about 1 ms each), so both delays are `null`.
 */
export function createMockModel(): MockLanguageModelV4 {
  const model = new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      // The mock records every call; under load that list would only grow.
      model.doStreamCalls.length = 0;
      const answered = prompt.some((message) => message.role === 'tool');
      return {
        stream: simulateReadableStream({
          chunks: [...(answered ? textParts : toolCallParts)],
          initialDelayInMs: null,
          chunkDelayInMs: null,
        }),
      };
    },
  });
  return model;
}

/** The tool's input. */
export interface WeatherInput {
  city: string;
}
/** The tool's output. */
export interface WeatherOutput {
  city: string;
  degrees: number;
}

/**
 * The schema of the tool's input, shared by the AI SDK and Mastra tools: a JSON Schema of the AI
 * SDK's own, as the bench depends on no schema library.
 */
export const weatherInputSchema: Schema<WeatherInput> = jsonSchema<WeatherInput>({
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
});

/** What the tool answers: the weather of a city, at once. */
export async function weatherOf({ city }: WeatherInput): Promise<WeatherOutput> {
  return { city, degrees: 21 };
}

/** The tool the model calls, as an AI SDK tool. */
export const weatherTool: Tool<WeatherInput, WeatherOutput> = tool({
  description: 'The weather in a city',
  inputSchema: weatherInputSchema,
  execute: weatherOf,
});

/** The AI SDK agent of the scenario, on a mock model of its own. */
export function createMockAgent(
  model: LanguageModel = createMockModel(),
): ToolLoopAgent<never, { [MOCK_TOOL_NAME]: Tool<WeatherInput, WeatherOutput> }> {
  return new ToolLoopAgent({
    id: ADAPTER_AGENT,
    model,
    tools: { [MOCK_TOOL_NAME]: weatherTool },
  });
}
