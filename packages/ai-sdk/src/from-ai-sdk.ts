import {
  type Agent,
  AgentFailureError,
  type AgentProgressEvent,
  defineAgent,
  InvalidInputError,
} from '@agentport/core';
import { approvalAnswerOf } from '@agentport/core/internal';
import {
  type Agent as AiSdkAgent,
  type ModelMessage,
  type OutputInterface,
  streamText,
  type TextStreamPart,
  type ToolSet,
} from 'ai';
import {
  type ApprovalState,
  approvalStateOf,
  pauseForApproval,
  resumedMessages,
} from './approvals.ts';
import { toModelMessages } from './model-messages.ts';
import { toolsOf } from './tools.ts';

/** What {@link fromAiSdk} takes besides the agent. */
export interface FromAiSdkOptions {
  /** The AgentPort name (default: the AI SDK agent's `id`; one of them is required). */
  name?: string;
  /** What the agent does, for cards and listings. */
  description?: string;
  /** Its instructions, as listings show them (the AI SDK agent keeps its own for the model). */
  instructions?: string;
  /** Its model's name, as listings show it. */
  model?: string;
}

/** An AI SDK agent (a `ToolLoopAgent` or another `Agent` implementation) without call options. */
export type AiSdkAgentLike<
  TTools extends ToolSet = ToolSet,
  TContext extends Record<string, unknown> = Record<string, unknown>,
  TOutput extends OutputInterface = OutputInterface,
> = AiSdkAgent<undefined, TTools, TContext, TOutput>;

/**
 * One part of `fullStream` as our progress event; undefined for the parts we drop (steps,
 * reasoning, sources, tool input streaming). An `error` part fails the run.
 */
export function toAgentEvent(
  agentName: string,
  part: TextStreamPart<ToolSet>,
): AgentProgressEvent | undefined {
  switch (part.type) {
    case 'text-delta':
      return { type: 'text-delta', delta: part.text };
    case 'tool-call':
      return { type: 'tool-call', id: part.toolCallId, name: part.toolName, input: part.input };
    case 'tool-result':
      return { type: 'tool-result', id: part.toolCallId, name: part.toolName, output: part.output };
    case 'tool-error':
      // The thrown error stays out of the event: its message may hold what a caller must not see.
      return {
        type: 'tool-result',
        id: part.toolCallId,
        name: part.toolName,
        output: { error: `Tool '${part.toolName}' failed` },
      };
    case 'error':
      // The provider's error (its request body, its headers) is kept as the cause, never sent.
      throw new AgentFailureError({ agentName, cause: part.error });
    default:
      return undefined;
  }
}

/**
 * What `streamText` takes, but the conversation (`prompt`, `messages`) and the abort signal, which
 * each run brings.
 */
export type StreamTextSettings = Omit<
  Parameters<typeof streamText>[0],
  'prompt' | 'messages' | 'abortSignal'
>;

/** What a run reads of a model call's result: its parts, and the messages of its response. */
interface CallResult {
  readonly fullStream: AsyncIterable<TextStreamPart<ToolSet>>;
  readonly response: PromiseLike<{ readonly messages: ModelMessage[] }>;
}

/** One model call of a run: the messages so far, streamed, stopping at the signal's abort. */
type StreamCall = (
  messages: ModelMessage[],
  abortSignal: AbortSignal,
) => PromiseLike<CallResult> | CallResult;

/** Whether `value` is an AI SDK agent rather than the settings of a `streamText` call. */
function isAiSdkAgent(value: object): value is AiSdkAgentLike {
  return typeof (value as Partial<AiSdkAgentLike>).stream === 'function';
}

/**
 * Serves a Vercel AI SDK agent as an AgentPort agent: its tools listed, its stream as our events.
 * The second form takes the settings of `streamText` (model, system, tools, stopWhen, ...) and
 * a name.
 *
 * @example
 * const agent = fromAiSdk(new ToolLoopAgent({ id: 'weather', model, tools: { weather } }));
 * const other = fromAiSdk({ model, system: 'Be brief', tools: { weather } }, { name: 'brief' });
 */
export function fromAiSdk<
  TTools extends ToolSet,
  TContext extends Record<string, unknown>,
  TOutput extends OutputInterface,
>(agent: AiSdkAgentLike<TTools, TContext, TOutput>, options?: FromAiSdkOptions): Agent;
export function fromAiSdk(
  settings: StreamTextSettings,
  options: FromAiSdkOptions & { name: string },
): Agent;
export function fromAiSdk(
  source: AiSdkAgentLike | StreamTextSettings,
  options: FromAiSdkOptions = {},
): Agent {
  if (isAiSdkAgent(source)) {
    return servedAgent(options.name ?? source.id, source.tools, options, (messages, abortSignal) =>
      // Agents with call options are not served yet (README, "Decisions"): none are passed.
      source.stream({ options: undefined, messages, abortSignal }),
    );
  }
  if ('prompt' in source || 'messages' in source) {
    throw new InvalidInputError(
      'fromAiSdk takes streamText settings without prompt or messages: each run brings the conversation',
      { field: 'prompt' in source ? 'prompt' : 'messages' },
    );
  }
  return servedAgent(options.name, source.tools, options, (messages, abortSignal) =>
    streamText({ ...source, messages, abortSignal } as Parameters<typeof streamText>[0]),
  );
}

/** The AgentPort agent of one AI SDK model call per run, as `call` makes it. */
function servedAgent(
  name: string | undefined,
  tools: ToolSet | undefined,
  options: FromAiSdkOptions,
  call: StreamCall,
): Agent {
  if (name === undefined) {
    throw new InvalidInputError(
      'fromAiSdk needs a name: give the agent an id or pass options.name',
      { field: 'name' },
    );
  }
  return defineAgent({
    name,
    ...(options.description !== undefined && { description: options.description }),
    ...(options.instructions !== undefined && { instructions: options.instructions }),
    ...(options.model !== undefined && { model: options.model }),
    tools: toolsOf(name, tools),
    async *run(_input, context) {
      const paused = approvalStateOf(context.resumeState);
      const approved = paused === undefined ? undefined : approvalAnswerOf(context.message);
      // An answer that is neither yes nor no asks the same question again rather than guessing.
      if (paused !== undefined && approved === undefined) return pauseForApproval(paused);
      const messages =
        paused !== undefined && approved !== undefined
          ? resumedMessages(paused, approved)
          : toModelMessages(context.history, context.message);
      const result = await call(messages, context.signal);
      let approval: Omit<ApprovalState, 'messages'> | undefined;
      for await (const part of result.fullStream) {
        if (part.type === 'tool-approval-request') {
          const { toolName, input } = part.toolCall;
          approval = { approvalId: part.approvalId, toolName, input };
          continue;
        }
        const event = toAgentEvent(name, part);
        if (event !== undefined) yield event;
      }
      if (approval === undefined) return undefined;
      const response = await result.response;
      return pauseForApproval({ ...approval, messages: [...messages, ...response.messages] });
    },
  });
}
