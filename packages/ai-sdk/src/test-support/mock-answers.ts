import { type MockLanguageModelV4, simulateReadableStream } from 'ai/test';

/** What a mock model's `doStream` answers. */
export type StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>;
/** One part of a mock model's stream. */
export type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;

/** The token usage every mock answer reports. */
export const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** One model answer of these stream parts. */
export function answer(chunks: StreamPart[]): StreamResult {
  return { stream: simulateReadableStream({ chunks }) };
}

/** One model answer streaming `words` as text deltas. */
export function textAnswer(...words: string[]): StreamResult {
  return answer([
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    ...words.map((delta): StreamPart => ({ type: 'text-delta', id: 't', delta })),
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ]);
}

/** One model answer calling `toolName` with `input`. */
export function toolCallAnswer(toolName: string, input: unknown): StreamResult {
  return answer([
    { type: 'stream-start', warnings: [] },
    { type: 'tool-call', toolCallId: 'call-1', toolName, input: JSON.stringify(input) },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
  ]);
}
