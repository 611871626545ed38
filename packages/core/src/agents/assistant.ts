import type { Agent } from '../agent.ts';
import { defineAgent } from '../define-agent.ts';
import { base64Size, type Message, type Part, textOf } from '../message.ts';
import { calculatorTool, createClockTool, wordCountTool } from './assistant-tools.ts';
import { createEchoAgent } from './echo.ts';

/** Options of {@link createAssistantAgent}. */
export interface AssistantAgentOptions {
  /** The agent it hands off to when asked to repeat something (default: a new `echo`). */
  echo?: Agent;
  /** The clock behind the `clock` tool. */
  now?: () => Date;
}

const REPEAT = /^\s*(?:please\s+)?(?:repeat|say|echo)(?:\s+after\s+me)?\b[\s:,]*([\s\S]*)$/i;
// Word counts are found in two linear steps: the request, then the first `:` or `in` after it
// (one unanchored pattern for both retried its lazy middle from every request it saw: quadratic).
const WORDS_REQUEST = /\b(?:count(?:\s+the)?\s+words|word\s+count|how\s+many\s+words)\b/i;
const WORDS_TEXT = /(?::|\bin\b:?)\s*/i;
const TIME = /\b(?:time|clock|date)\b/i;
const MATH_PREFIX = /^\s*(?:what\s+is|what's|calculate|compute|evaluate)\s+/i;
const MATH = /^[\d\s.+\-*/%^()e]+$/i;

const RECALL = /\bwhat\s+did\s+i\s+say\b/i;
const DESCRIBE_PARTS = /\bdescribe\s+(?:the\s+)?parts\b/i;

const HELP =
  'I can do arithmetic (try "what is 2 + 3 * 4"), tell the UTC time ("what time is it"), ' +
  'count words ("count the words in: ..."), repeat something ("repeat hello"), recall what ' +
  'you said before ("what did I say?"), or describe the parts of your message ("describe the parts").';

const encoder = new TextEncoder();

/** The earlier user messages of the conversation, one per line. */
function recall(history: readonly Message[]): string {
  const said = history
    .filter((message) => message.role === 'user')
    .map((message) => textOf(message.parts));
  return said.length === 0 ? 'You have not said anything yet.' : said.join('\n');
}

/** One line per part: its kind, its media type, and its size in bytes (a file by URL has none). */
function describeParts(parts: readonly Part[]): string {
  return parts
    .map((part) => {
      switch (part.kind) {
        case 'text':
          return `text text/plain ${encoder.encode(part.text).length} bytes`;
        case 'data':
          return `data application/json ${encoder.encode(JSON.stringify(part.data)).length} bytes`;
        default:
          return part.bytes === undefined
            ? `file ${part.mediaType} at ${part.url}`
            : `file ${part.mediaType} ${base64Size(part.bytes)} bytes`;
      }
    })
    .join('\n');
}

/** The text whose words to count, when the input asks for a word count. */
function wordsToCount(input: string): string | undefined {
  const request = WORDS_REQUEST.exec(input);
  if (request === null) return undefined;
  const rest = input.slice(request.index + request[0].length);
  const separator = WORDS_TEXT.exec(rest);
  if (separator === null) return undefined;
  const text = rest.slice(separator.index + separator[0].length);
  return text === '' ? undefined : text;
}

/** `text` without its trailing `?`, `=` and whitespace (a loop: a `[?=\s]+$` pattern is quadratic). */
function withoutTrailingMarks(text: string): string {
  let end = text.length;
  while (end > 0 && /[?=\s]/.test(text.charAt(end - 1))) end -= 1;
  return text.slice(0, end);
}

function mathExpression(input: string): string | undefined {
  const candidate = withoutTrailingMarks(input.replace(MATH_PREFIX, '')).trim();
  return MATH.test(candidate) && /\d/.test(candidate) ? candidate : undefined;
}

/**
 * Creates the deterministic `assistant` agent (no network): arithmetic with the `calculator`
 * tool, the UTC time with `clock`, word counts with `word_count`, a handoff to `echo` when
 * asked to repeat something, the earlier user messages of its conversation when asked "what did
 * I say?", and one line per part of its message (kind, media type, bytes) for "describe the parts".
 */
export function createAssistantAgent(options: AssistantAgentOptions = {}): Agent {
  const echo = options.echo ?? createEchoAgent();
  const clock = createClockTool(options.now);
  return defineAgent({
    name: 'assistant',
    description: 'A deterministic demo assistant: arithmetic, UTC time, word counts and repeating.',
    instructions: HELP,
    model: 'agentport/rules',
    tools: [calculatorTool, clock, wordCountTool],
    // It describes whatever parts it is sent: files of any kind included.
    inputModes: ['text/plain', 'application/json', 'image/*', 'application/octet-stream'],
    handoffs: [echo],
    async *run(input, context) {
      if (RECALL.test(input)) return recall(context.history);
      if (DESCRIBE_PARTS.test(input)) return describeParts(context.message.parts);
      const repeat = REPEAT.exec(input);
      if (repeat) {
        const text = repeat[1]?.trim() ?? '';
        if (text === '') return 'Tell me what to repeat, as in "repeat hello".';
        return yield* context.handoff(echo, text);
      }
      const text = wordsToCount(input);
      if (text !== undefined) {
        const { words: count } = yield* context.callTool(wordCountTool, { text });
        yield { type: 'text-delta', delta: `${count} ${count === 1 ? 'word' : 'words'}` };
        return;
      }
      const expression = mathExpression(input);
      if (expression !== undefined) {
        const { result } = yield* context.callTool(calculatorTool, { expression });
        yield { type: 'text-delta', delta: `${expression} = ${result}` };
        return;
      }
      if (TIME.test(input)) {
        const { utc } = yield* context.callTool(clock, {});
        yield { type: 'text-delta', delta: `The current UTC time is ${utc}` };
        return;
      }
      yield { type: 'text-delta', delta: HELP };
    },
  });
}
