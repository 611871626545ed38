import { fromAiSdk } from '@agentport/ai-sdk';
import { stepCountIs, ToolLoopAgent, tool } from 'ai';
import { MockLanguageModelV4, simulateReadableStream } from 'ai/test';
import * as z from 'zod';
import { BOOKING, HANG, heard, type ScriptedAgent, turnOf, WEATHER } from './script.ts';

type StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;
type Prompt = Parameters<MockLanguageModelV4['doStream']>[0]['prompt'];

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model answer streaming `text` word by word. */
function textAnswer(text: string): StreamResult {
  const words = text.split(/(?<= )/);
  const chunks: StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    ...words.map((delta): StreamPart => ({ type: 'text-delta', id: 't', delta })),
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ];
  return {
    stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null }),
  };
}

/** A model answer calling one tool. */
function toolCall(toolName: string, input: unknown): StreamResult {
  const chunks: StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'tool-call', toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
  ];
  return {
    stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null }),
  };
}

/** The texts of the prompt's user messages, oldest first. */
function userTexts(prompt: Prompt): string[] {
  return prompt
    .filter((message) => message.role === 'user')
    .map((message) =>
      message.content.map((part) => (part.type === 'text' ? part.text : '')).join(''),
    );
}

/** The answer after a tool's result: the weather, or whether the room was booked. */
function afterToolResult(message: Extract<Prompt[number], { role: 'tool' }>): StreamResult {
  const result = message.content.find((part) => part.type === 'tool-result');
  if (result?.toolName === WEATHER.tool) return textAnswer(WEATHER.answer);
  const denied = result?.output.type === 'execution-denied';
  return textAnswer(denied ? BOOKING.denied : BOOKING.approved);
}

/** An AI SDK `ToolLoopAgent` on a mock model playing the script, served by `fromAiSdk`. */
export function createAiSdkScripted(name: string): ScriptedAgent {
  let aborts = 0;
  const model = new MockLanguageModelV4({
    doStream: async ({ prompt, abortSignal }) => {
      const last = prompt.at(-1);
      if (last?.role === 'tool') return afterToolResult(last);
      const texts = userTexts(prompt);
      const turn = turnOf(texts.at(-1) ?? '');
      if (turn === 'weather') return toolCall(WEATHER.tool, WEATHER.input);
      if (turn === 'book') return toolCall(BOOKING.tool, BOOKING.input);
      if (turn === 'heard') return textAnswer(heard(texts));
      const stream = new ReadableStream<StreamPart>({
        start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'text-start', id: 't' });
          controller.enqueue({ type: 'text-delta', id: 't', delta: HANG.first });
          abortSignal?.addEventListener('abort', () => {
            aborts += 1;
            controller.error(abortSignal.reason);
          });
        },
      });
      return { stream };
    },
  });
  const weather = tool({
    description: 'The weather in a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, degrees: WEATHER.output.degrees }),
  });
  const book = tool({
    description: 'Books a room',
    inputSchema: z.object({ room: z.string() }),
    needsApproval: true,
    execute: async ({ room }) => ({ booked: room }),
  });
  const agent = new ToolLoopAgent({
    id: name,
    model,
    tools: { weather, book },
    stopWhen: stepCountIs(4),
  });
  return {
    agent: fromAiSdk(agent, { description: 'An AI SDK agent playing the adapters script' }),
    abortsSeen: () => aborts,
  };
}
