import { fromOpenAIAgent } from '@agentport/openai-agents';
import {
  Agent,
  type AgentInputItem,
  type AgentOutputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  type StreamEvent,
  tool,
  Usage,
} from '@openai/agents';
import { assistantMessage, functionCall } from '@openai/agents/testing';
import * as z from 'zod';
import { BOOKING, HANG, heard, type ScriptedAgent, turnOf, WEATHER } from './script.ts';

/** What the model does for one request: answer with text (word by word), call a tool, or hang. */
type Answer =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'call'; readonly tool: string; readonly input: Record<string, unknown> }
  | { readonly kind: 'hang' };

/** The text of a user item's content, its text parts joined. */
function textOfUser(content: Extract<AgentInputItem, { role: 'user' }>['content']): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'input_text' ? part.text : '')).join('');
}

/** The texts of the request's user items, oldest first. */
function userTexts(input: ModelRequest['input']): string[] {
  if (typeof input === 'string') return [input];
  return input.flatMap((item) =>
    'role' in item && item.role === 'user' ? [textOfUser(item.content)] : [],
  );
}

/** The text of a tool result's output, as the SDK gives it back to the model. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  const { text } = output as { text?: unknown };
  return typeof text === 'string' ? text : JSON.stringify(output);
}

/** What the script says to a request: after a tool result, its answer; else by the newest user text. */
function answerOf(request: ModelRequest): Answer {
  const { input } = request;
  const last = typeof input === 'string' ? undefined : input.at(-1);
  if (last?.type === 'function_call_result') {
    if (last.name === WEATHER.tool) return { kind: 'text', text: WEATHER.answer };
    // The SDK tells the model of a rejected call by this text as the call's output.
    const denied = outputText(last.output).includes('not approved');
    return { kind: 'text', text: denied ? BOOKING.denied : BOOKING.approved };
  }
  const texts = userTexts(input);
  const turn = turnOf(texts.at(-1) ?? '');
  if (turn === 'weather') return { kind: 'call', tool: WEATHER.tool, input: WEATHER.input };
  if (turn === 'book') return { kind: 'call', tool: BOOKING.tool, input: BOOKING.input };
  if (turn === 'hang') return { kind: 'hang' };
  return { kind: 'text', text: heard(texts) };
}

/** The output items of a text answer or a tool call, the `call`th of the model. */
function outputOf(answer: Exclude<Answer, { kind: 'hang' }>, call: number): AgentOutputItem[] {
  if (answer.kind === 'text') return [assistantMessage(answer.text, { id: `message-${call}` })];
  return [functionCall(answer.tool, answer.input, { callId: `call-${answer.tool}-${call}` })];
}

type ResponseDone = Extract<StreamEvent, { type: 'response_done' }>;

const usage = { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** A `Model` of the SDK's interface playing the script; `onAbort` counts the hangs' aborts. */
class ScriptModel implements Model {
  readonly #onAbort: () => void;
  #calls = 0;

  constructor(onAbort: () => void) {
    this.#onAbort = onAbort;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const answer = answerOf(request);
    if (answer.kind === 'hang') throw new Error('The hang turn is played streamed only');
    this.#calls += 1;
    return { usage: new Usage(usage), output: outputOf(answer, this.#calls) };
  }

  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const answer = answerOf(request);
    yield { type: 'response_started' };
    if (answer.kind === 'hang') {
      yield { type: 'output_text_delta', delta: HANG.first };
      await this.#abortOf(request.signal);
      return;
    }
    if (answer.kind === 'text') {
      for (const delta of answer.text.split(/(?<= )/)) yield { type: 'output_text_delta', delta };
    }
    this.#calls += 1;
    // The stream's terminal event carries the same items the non-streamed response would.
    const output = outputOf(answer, this.#calls) as ResponseDone['response']['output'];
    yield { type: 'response_done', response: { id: `response-${this.#calls}`, usage, output } };
  }

  /** Resolves once `signal` aborts (counting it), never without one. */
  #abortOf(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const aborted = () => {
        this.#onAbort();
        resolve();
      };
      if (signal?.aborted) aborted();
      else signal?.addEventListener('abort', aborted, { once: true });
    });
  }
}

/** An `@openai/agents` Agent on a model playing the script, served by `fromOpenAIAgent`. */
export function createOpenAIAgentsScripted(name: string): ScriptedAgent {
  let aborts = 0;
  const weather = tool({
    name: WEATHER.tool,
    description: 'The weather in a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, degrees: WEATHER.output.degrees }),
  });
  const book = tool({
    name: BOOKING.tool,
    description: 'Books a room',
    parameters: z.object({ room: z.string() }),
    needsApproval: true,
    execute: async ({ room }) => ({ booked: room }),
  });
  const model = new ScriptModel(() => {
    aborts += 1;
  });
  const agent = new Agent({ name, model, tools: [weather, book] });
  return {
    agent: fromOpenAIAgent(agent, {
      description: 'An OpenAI Agents SDK agent playing the adapters script',
      runner: new Runner({ tracingDisabled: true }),
    }),
    abortsSeen: () => aborts,
  };
}
