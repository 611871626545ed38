import {
  type Agent,
  AgentFailureError,
  type AgentProgressEvent,
  type AgentRunContext,
  defineAgent,
  type InputRequiredEvent,
} from '@agentport/core';
import type { BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  type BaseCheckpointSaver,
  type Command,
  isInvalidResume,
  MemorySaver,
} from '@langchain/langgraph';
import {
  type InterruptState,
  interruptStateOf,
  type PendingInterrupt,
  pauseForInterrupt,
  resumeCommand,
} from './interrupts.ts';
import { toLangChainMessage } from './messages.ts';
import { createStreamMemory, interruptsOf, textDeltaOf, toolEventsOf } from './stream-events.ts';
import { type LangChainToolLike, toAgentPortTools, toolsOfGraph } from './tools.ts';

/** What {@link fromLangGraph} takes besides the graph. */
export interface FromLangGraphOptions {
  /** The AgentPort name (required: a compiled graph has no name of its own worth serving). */
  name: string;
  /** What the agent does, for cards and listings. */
  description?: string;
  /** Its instructions, as listings show them (the graph keeps its own prompt for the model). */
  instructions?: string;
  /** Its model's name, as listings show it. */
  model?: string;
  /** The tools to list, instead of those of the graph's tool nodes (for tools the graph hides). */
  tools?: readonly LangChainToolLike[];
}

/** The options of one `stream` call of the graph, as {@link fromLangGraph} makes them. */
export interface LangGraphStreamOptions {
  streamMode: ('messages' | 'updates')[];
  configurable: { thread_id: string };
  signal: AbortSignal;
}

/**
 * A compiled LangGraph.js graph whose state has `messages` (what `createReactAgent` builds, or a
 * `StateGraph` of `MessagesAnnotation` compiled), as {@link fromLangGraph} uses it.
 */
export interface LangGraphLike {
  /** The saver the graph was compiled with, if any. */
  checkpointer?: BaseCheckpointSaver | boolean | undefined;
  /** The graph's nodes, by name (their runnables are searched for tool nodes). */
  readonly nodes: Readonly<Record<string, unknown>>;
  /** Runs the graph on `{ messages }` or a `Command`, streaming what `options.streamMode` names. */
  stream(input: unknown, options: LangGraphStreamOptions): Promise<AsyncIterable<unknown>>;
  /** The thread's state, of the thread `config.configurable.thread_id` names. */
  getState(config: RunnableConfig): Promise<LangGraphStateLike>;
  /** A copy of the graph with `config` merged into its own. */
  withConfig(config: RunnableConfig): LangGraphLike;
}

/** What {@link LangGraphLike.getState} gives that a run reads: the thread's values and pending tasks. */
export interface LangGraphStateLike {
  readonly values: unknown;
  readonly tasks: readonly { readonly interrupts: readonly PendingInterrupt[] }[];
}

/** The graph as one run uses it: the graph itself, or a copy with a saver for this run only. */
interface RunGraph {
  readonly graph: LangGraphLike;
  readonly threadId: string;
  /** Whether the thread outlives the run (the graph has a checkpointer of its own). */
  readonly durable: boolean;
  /** Forgets the run's thread of a saver lent for the run. */
  release(): Promise<void>;
}

function hasCheckpointer(graph: LangGraphLike): boolean {
  return typeof graph.checkpointer === 'object' && graph.checkpointer !== null;
}

/**
 * A graph without a checkpointer runs on a copy with an in-memory saver, each run on a thread of
 * its own deleted afterwards: `interrupt()` then surfaces in the stream (where it would otherwise
 * be turned into a tool error by ToolNode), and the run can say that pausing needs a checkpointer.
 */
function runGraphOf(
  graph: LangGraphLike,
): (context: AgentRunContext, resume?: InterruptState) => RunGraph {
  if (hasCheckpointer(graph)) {
    return (context, resume) => ({
      graph,
      threadId: resume?.threadId ?? context.contextId ?? context.taskId ?? crypto.randomUUID(),
      durable: true,
      release: async () => undefined,
    });
  }
  const saver = new MemorySaver();
  const lent = graph.withConfig({});
  lent.checkpointer = saver;
  return () => {
    const threadId = crypto.randomUUID();
    return { graph: lent, threadId, durable: false, release: () => saver.deleteThread(threadId) };
  };
}

/** Whether the graph's thread already holds messages (then it, not the caller, has the history). */
async function threadHasMessages(run: RunGraph): Promise<boolean> {
  if (!run.durable) return false;
  const snapshot = await run.graph.getState({ configurable: { thread_id: run.threadId } });
  const messages = (snapshot.values as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(messages) && messages.length > 0;
}

/** The graph's input for a first run: the new message, after the conversation's when the thread has none. */
async function inputOf(
  run: RunGraph,
  context: AgentRunContext,
): Promise<{ messages: BaseMessage[] }> {
  const earlier = (await threadHasMessages(run)) ? [] : context.history;
  return { messages: [...earlier, context.message].map(toLangChainMessage) };
}

/**
 * The interrupt the paused thread still waits for, so that resuming is sure of it: LangGraph would
 * otherwise run the graph again from its start, without any input.
 */
async function waitingInterrupt(
  agentName: string,
  run: RunGraph,
  resume: InterruptState,
): Promise<PendingInterrupt> {
  const snapshot = await run.graph.getState({ configurable: { thread_id: run.threadId } });
  const pending = snapshot.tasks
    .flatMap((task) => task.interrupts)
    .find((candidate) => resume.interruptId === undefined || candidate.id === resume.interruptId);
  if (pending === undefined) {
    throw new AgentFailureError({
      agentName,
      message: `Agent '${agentName}' cannot resume: its graph's thread no longer waits for this answer`,
    });
  }
  return pending;
}

/**
 * Resumes the paused thread with the caller's answer; an answer its `responseSchema` refuses (in
 * a node: a tool's is a tool error of ToolNode) asks the same question again.
 */
async function* resumeRun(
  agentName: string,
  run: RunGraph,
  resume: InterruptState,
  context: AgentRunContext,
): AsyncGenerator<AgentProgressEvent, InputRequiredEvent | undefined> {
  const pending = await waitingInterrupt(agentName, run, resume);
  try {
    return yield* streamRun(agentName, run, resumeCommand(resume, context.message), context.signal);
  } catch (error) {
    if (isInvalidResume(error)) return pauseForInterrupt(pending, run.threadId);
    throw error;
  }
}

/** The message of the run that paused a graph compiled without a checkpointer. */
function noCheckpointerMessage(agentName: string): string {
  return (
    `Agent '${agentName}' called interrupt() but its graph was compiled without a checkpointer: ` +
    'compile it with one (such as new MemorySaver() of @langchain/langgraph) to pause and resume'
  );
}

/** Streams one run of the graph as our events; returns the pause of its first interrupt, if any. */
async function* streamRun(
  agentName: string,
  run: RunGraph,
  input: { messages: BaseMessage[] } | Command,
  signal: AbortSignal,
): AsyncGenerator<AgentProgressEvent, InputRequiredEvent | undefined> {
  const stream = await run.graph.stream(input, {
    streamMode: ['messages', 'updates'],
    configurable: { thread_id: run.threadId },
    signal,
  });
  const memory = createStreamMemory();
  let pending: PendingInterrupt | undefined;
  for await (const part of stream) {
    const [mode, chunk] = part as [string, unknown];
    if (mode === 'messages') {
      const delta = textDeltaOf(chunk);
      if (delta !== '') yield { type: 'text-delta', delta };
      continue;
    }
    pending ??= interruptsOf(chunk)[0];
    yield* toolEventsOf(chunk, memory);
  }
  if (pending === undefined) return undefined;
  if (!run.durable)
    throw new AgentFailureError({ agentName, message: noCheckpointerMessage(agentName) });
  return pauseForInterrupt(pending, run.threadId);
}

/**
 * Serves a compiled LangGraph.js graph as an AgentPort agent: its tools listed, its stream of
 * messages and updates as our events, `interrupt()` as a pause resumed by `Command({ resume })`.
 *
 * @example
 * const graph = createReactAgent({ llm, tools: [weather], checkpointer: new MemorySaver() });
 * const agent = fromLangGraph(graph, { name: 'weather', description: 'Tells the weather' });
 */
export function fromLangGraph(graph: LangGraphLike, options: FromLangGraphOptions): Agent {
  const { name } = options;
  const runGraph = runGraphOf(graph);
  return defineAgent({
    name,
    ...(options.description !== undefined && { description: options.description }),
    ...(options.instructions !== undefined && { instructions: options.instructions }),
    ...(options.model !== undefined && { model: options.model }),
    tools: toAgentPortTools(options.tools ?? toolsOfGraph(graph.nodes)),
    async *run(_input, context) {
      const resume = interruptStateOf(context.resumeState);
      const run = runGraph(context, resume);
      try {
        if (resume !== undefined) return yield* resumeRun(name, run, resume, context);
        return yield* streamRun(name, run, await inputOf(run, context), context.signal);
      } finally {
        await run.release();
      }
    },
  });
}
