import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';

/** One answer of the model: text streamed in these pieces, and the tool calls it makes. */
export interface ScriptedAnswer {
  text?: readonly string[];
  toolCalls?: readonly { id: string; name: string; args: Record<string, unknown> }[];
}

/** How the model answers a call: from the messages it is given and the call's signal. */
export type Answerer = (
  messages: readonly BaseMessage[],
  signal: AbortSignal | undefined,
) => ScriptedAnswer | Promise<ScriptedAnswer>;

/**
 * A test double of a chat model (LangChain's `BaseChatModel`, no network) that answers by a
 * function of its messages, streams its text token by token and can call tools; `bindTools` keeps
 * it as it is. It records the messages and the signal of every call.
 */
export class ScriptedChatModel extends BaseChatModel {
  readonly calls: { messages: BaseMessage[]; signal: AbortSignal | undefined }[] = [];
  readonly #answer: Answerer;

  constructor(answer: Answerer) {
    super({});
    this.#answer = answer;
  }

  _llmType(): string {
    return 'scripted';
  }

  override bindTools(): this {
    return this;
  }

  async _generate(): Promise<ChatResult> {
    throw new Error('ScriptedChatModel only streams');
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    this.calls.push({ messages, signal: options.signal });
    const answer = await this.#answer(messages, options.signal);
    for (const text of answer.text ?? []) {
      const chunk = new ChatGenerationChunk({
        text,
        message: new AIMessageChunk({ content: text }),
      });
      yield chunk;
      await runManager?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, {
        chunk,
      });
    }
    const toolCalls = answer.toolCalls ?? [];
    if (toolCalls.length === 0) return;
    const tool_call_chunks = toolCalls.map((call, index) => ({
      id: call.id,
      name: call.name,
      args: JSON.stringify(call.args),
      index,
      type: 'tool_call_chunk' as const,
    }));
    yield new ChatGenerationChunk({
      text: '',
      message: new AIMessageChunk({ content: '', tool_call_chunks }),
    });
  }
}
