import { defineAgent, defineTool } from '@agentport/core';

/**
 * A tool: a name, a description, JSON Schema parameters (checked before `execute` runs) and
 * a function. A model-backed agent gets the same description and schema to choose its tools by.
 */
export const countWords = defineTool<{ text: string }, { words: number; characters: number }>({
  name: 'count_words',
  description: 'Counts the words and characters of a text.',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The text to count' } },
    required: ['text'],
    additionalProperties: false,
  },
  execute: ({ text }) => ({
    words: text.split(/\s+/).filter((word) => word !== '').length,
    characters: [...text].length,
  }),
});

function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * The agent: plain code, no model. It calls its tool (which the caller sees as `tool-call` and
 * `tool-result` events) and streams its answer as text.
 */
export const wordCounter = defineAgent({
  name: 'word-counter',
  description: 'Counts the words and characters of the text it is sent.',
  tools: [countWords],
  async *run(input, context) {
    const { words, characters } = yield* context.callTool(countWords, { text: input });
    yield {
      type: 'text-delta',
      delta: `${counted(words, 'word')}, ${counted(characters, 'character')}`,
    };
  },
});
