import {
  type AgentInput,
  ContextNotFoundError,
  type ConversationStore,
  type Message,
  type Task,
  type TaskEvent,
  type TaskStore,
  textOf,
  userMessage,
} from '@agentport/core';
import { randomUuid, readConversation } from '@agentport/core/internal';
import { StreamRun } from './stream-run.ts';
import type { StreamedAgent, StreamRunHost } from './stream-run-host.ts';

/**
 * How long a stream run's task is kept once finished, by default: ten minutes, for a client whose
 * stream dropped near its end to rejoin it and read how it ended (A2A tasks are kept an hour).
 */
export const DEFAULT_STREAM_RETAIN_MS = 10 * 60 * 1000;

/** How many earlier messages of its conversation a run is handed by default (as core's runner). */
const DEFAULT_MAX_HISTORY = 100;

/** The metadata of every stream run's task (the store keeps no copy of an empty one). */
const NO_METADATA: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** What {@link StreamRuns} keeps its runs' conversations in, besides its store. */
export interface StreamRunsOptions {
  /**
   * Where the runs' conversations live: a run in a `contextId` is handed its earlier messages,
   * and its turn (the message and the answer, or the question) is recorded there before its task
   * ends. Without one, runs have no history and record nothing.
   */
  conversations?: ConversationStore;
  /** How many earlier messages a run is handed at most, the newest (default 100). */
  maxHistory?: number;
  /**
   * A plain text sent in no conversation stays its task's `input` only: no message in the
   * task's history (its log starts as without conversations, the stream's ids from 3) until the
   * agent pauses, when it goes before the question; the turn is recorded all the same. An idle
   * stream then holds what it held before conversations (default false: the task holds the
   * message, ids from 4).
   */
  keepTextAsInput?: boolean;
}

/** What {@link StreamRuns.start} takes besides the agent and its input. */
export interface StreamRunStartOptions {
  /** The conversation the run joins; without one, its task starts one named by its own id. */
  contextId?: string;
}

/**
 * A surface's stream runs, by task id: one store listener for them all (a run is told of its
 * own task's changes through it, never through a listener of its own), and how long each goes on
 * once nobody reads it.
 */
export class StreamRuns implements StreamRunHost {
  readonly store: TaskStore;
  readonly graceMs: number;
  readonly closing: AbortSignal;
  /** How long each run's task is kept once finished (its own retention in the store). */
  readonly retainMs: number;
  readonly conversations: ConversationStore | undefined;
  readonly maxHistory: number;
  readonly keepTextAsInput: boolean;
  readonly #runs = new Map<string, StreamRun>();
  #unsubscribe: (() => void) | undefined;

  constructor(
    store: TaskStore,
    graceMs: number,
    closing: AbortSignal,
    retainMs = DEFAULT_STREAM_RETAIN_MS,
    options: StreamRunsOptions = {},
  ) {
    this.store = store;
    this.graceMs = graceMs;
    this.closing = closing;
    this.retainMs = retainMs;
    this.conversations = options.conversations;
    this.maxHistory = options.maxHistory ?? DEFAULT_MAX_HISTORY;
    this.keepTextAsInput = options.keepTextAsInput === true;
  }

  /**
   * Creates the task of a run of `agent`, started (`working`); the agent starts at `open`. With a
   * conversation store, the task holds the caller's message (but see `keepTextAsInput`), and a
   * `contextId` is read first: its earlier messages are the run's history, and a conversation of
   * another agent is refused with ContextNotFoundError (404) before any task.
   */
  start(
    agent: StreamedAgent,
    input: AgentInput,
    options?: StreamRunStartOptions,
  ): Promise<StreamRun> {
    const contextId = options?.contextId;
    const { conversations } = this;
    if (conversations === undefined || contextId === undefined) {
      return this.#create(agent, input, contextId, undefined);
    }
    const read = readConversation(this.store, conversations, contextId, { limit: this.maxHistory });
    return read.then((conversation) => {
      if (conversation === undefined) return this.#create(agent, input, contextId, undefined);
      if (conversation.agentName !== agent.name) throw new ContextNotFoundError(contextId);
      return this.#create(agent, input, contextId, conversation.messages);
    });
  }

  #create(
    agent: StreamedAgent,
    input: AgentInput,
    contextId: string | undefined,
    history: readonly Message[] | undefined,
  ): Promise<StreamRun> {
    const id = randomUuid();
    const { store } = this;
    const messages =
      typeof input !== 'string'
        ? [input]
        : this.conversations === undefined || (contextId === undefined && this.keepTextAsInput)
          ? undefined
          : [userMessage(input)];
    // Promise steps, not an async function: this is on every stream's path.
    return store
      .create({
        id,
        contextId,
        agentName: agent.name,
        input: typeof input === 'string' ? input : textOf(input.parts),
        metadata: NO_METADATA,
        messages,
        status: 'working',
        retainMs: this.retainMs,
      })
      .then((task) => {
        // Nobody knew the id until now: nothing but this run wrote the task.
        const run = new StreamRun(this, agent, task, history);
        this.#runs.set(id, run);
        this.#unsubscribe ??= store.subscribe(this.#changed);
        return run;
      });
  }

  /** The run of a task, while it is on in this server. */
  get(id: string): StreamRun | undefined {
    return this.#runs.get(id);
  }

  ended(run: StreamRun): void {
    this.#runs.delete(run.id);
  }

  /** Cancels every run still on (shutdown); the listener stays, to tell them of their cancel. */
  close(): void {
    for (const run of this.#runs.values()) run.cancel();
  }

  readonly #changed = (task: Task, events: readonly TaskEvent[]): void => {
    this.#runs.get(task.id)?.changed(task, events);
  };
}
