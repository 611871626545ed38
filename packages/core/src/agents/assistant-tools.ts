import * as z from 'zod';
import type { Tool } from '../tool.ts';
import { defineTool } from '../tool.ts';
import { evaluateExpression } from './calculator.ts';

/** The `calculator` tool: evaluates an arithmetic expression safely (no eval). */
export const calculatorTool: Tool<{ expression: string; result: number }> = defineTool({
  name: 'calculator',
  description: 'Evaluates an arithmetic expression with + - * / % ^ and parentheses.',
  parameters: z.object({
    expression: z.string().min(1).max(500).describe('The expression, such as 2 * (3 + 4)'),
  }),
  execute: ({ expression }) => ({ expression, result: evaluateExpression(expression) }),
});

/** Creates the `clock` tool, which tells the current UTC time (the clock is injectable for tests). */
export function createClockTool(now: () => Date = () => new Date()): Tool<{ utc: string }> {
  return defineTool<Record<string, never>, { utc: string }>({
    name: 'clock',
    description: 'Tells the current date and time in UTC, as ISO 8601.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    execute: () => ({ utc: now().toISOString() }),
  });
}

/** The `word_count` tool: counts the words of a text. */
export const wordCountTool: Tool<{ words: number }> = defineTool<
  { text: string },
  { words: number }
>({
  name: 'word_count',
  description: 'Counts the words (runs of non-space characters) in a text.',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The text to count' } },
    required: ['text'],
    additionalProperties: false,
  },
  execute: ({ text }) => ({ words: text.split(/\s+/).filter((word) => word !== '').length }),
});
