import { fromLangGraph } from '@agentport/langgraph';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessageChunk, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { interrupt, MemorySaver } from '@langchain/langgraph';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import * as z from 'zod';
import { BOOKING, HANG, heard, type ScriptedAgent, turnOf, WEATHER } from './script.ts';

/** What the scripted model does for one call: stream text, call a tool, or wait for its abort. */
type Move =
  | { kind: 'text'; text: string }
  | { kind: 'tool'; name: string; args: Record<string, unknown> }
  | { kind: 'hang' };

/** The texts of the human messages the model was given, oldest first. */
function userTexts(messages: readonly BaseMessage[]): string[] {
  return messages.filter((message) => message.type === 'human').map((message) => message.text);
}

/** The script's move for the messages a model call is given. */
function moveOf(messages: readonly BaseMessage[]): Move {
  const last = messages.at(-1);
  if (last !== undefined && ToolMessage.isInstance(last)) {
    if (last.name === WEATHER.tool) return { kind: 'text', text: WEATHER.answer };
    return { kind: 'text', text: last.text === 'booked' ? BOOKING.approved : BOOKING.denied };
  }
  const texts = userTexts(messages);
  const turn = turnOf(texts.at(-1) ?? '');
  if (turn === 'weather') return { kind: 'tool', name: WEATHER.tool, args: { ...WEATHER.input } };
  if (turn === 'book') return { kind: 'tool', name: BOOKING.tool, args: { ...BOOKING.input } };
  if (turn === 'hang') return { kind: 'hang' };
  return { kind: 'text', text: heard(texts) };
}

/**
 * LangChain's `BaseChatModel` as a test double playing the script (no network): it streams its
 * text word by word through the callbacks LangGraph's `messages` stream listens to.
 */
class ScriptModel extends BaseChatModel {
  aborts = 0;

  _llmType(): string {
    return 'agentport-script';
  }

  override bindTools(): this {
    return this;
  }

  async _generate(): Promise<ChatResult> {
    throw new Error('The script model only streams');
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const move = moveOf(messages);
    if (move.kind === 'tool') {
      // A thread keeps its earlier calls: the id must be new in it, or ToolNode skips the call.
      const id = `call-${move.name}-${messages.length}`;
      const args = JSON.stringify(move.args);
      const tool_call_chunks = [
        { id, name: move.name, args, index: 0, type: 'tool_call_chunk' as const },
      ];
      yield new ChatGenerationChunk({
        text: '',
        message: new AIMessageChunk({ content: '', tool_call_chunks }),
      });
      return;
    }
    const words = move.kind === 'hang' ? [HANG.first] : move.text.split(/(?<= )/);
    for (const word of words) {
      const chunk = new ChatGenerationChunk({
        text: word,
        message: new AIMessageChunk({ content: word }),
      });
      yield chunk;
      await runManager?.handleLLMNewToken(word, undefined, undefined, undefined, undefined, {
        chunk,
      });
    }
    if (move.kind === 'hang') await this.#untilAborted(options.signal);
  }

  /** Waits for the call's signal to abort, counts it, and fails the call with its reason. */
  async #untilAborted(signal: AbortSignal | undefined): Promise<never> {
    await new Promise<void>((resolve) => {
      if (signal?.aborted) resolve();
      else signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    this.aborts += 1;
    throw signal?.reason ?? new Error('aborted');
  }
}

/** A LangGraph react agent on a scripted chat model, with a checkpointer, served by `fromLangGraph`. */
export function createLangGraphScripted(name: string): ScriptedAgent {
  const llm = new ScriptModel({});
  const weather = tool(async ({ city }) => ({ city, degrees: WEATHER.output.degrees }), {
    name: WEATHER.tool,
    description: 'The weather in a city',
    schema: z.object({ city: z.string() }),
  });
  const book = tool(
    async ({ room }) => {
      const answer = interrupt(`Shall I book the ${room} room? Answer yes or no.`);
      return typeof answer === 'string' && answer.trim().toLowerCase() === 'yes'
        ? 'booked'
        : 'not booked';
    },
    { name: BOOKING.tool, description: 'Books a room', schema: z.object({ room: z.string() }) },
  );
  const graph = createReactAgent({ llm, tools: [weather, book], checkpointer: new MemorySaver() });
  return {
    agent: fromLangGraph(graph, {
      name,
      description: 'A LangGraph agent playing the adapters script',
    }),
    abortsSeen: () => llm.aborts,
  };
}
