import {
  type Agent,
  type AgentEvent,
  type AgentInput,
  type AgentPortError,
  type AgentRunOptions,
  CancellationError,
  type ConversationStore,
  createTaskRunner,
  type Message,
  type TaskEvent,
  type TaskRunner,
  type TaskStore,
  type TurnResult,
} from '@agentport/core';
import {
  type AgentEventObserver,
  observeAgentEvents,
  randomUuid,
  toAgentFailure,
} from '@agentport/core/internal';
import type { RunResponse } from './definitions.ts';
import { RunCollector } from './run-events.ts';

/** The push side of a core event stream (core's `PUSH_EVENTS`, a registered symbol). */
const PUSH_EVENTS = Symbol.for('agentport.agent-events.push');

/**
 * The collector of each run a Runner starts, by the metadata object it hands the run: core's
 * direct turn passes that object on to the agent's stream as it is, so the stream finds its own
 * run's collector (a key per run: two runs of one conversation never mix their tool calls).
 */
const collectors = new WeakMap<object, RunCollector>();

/** An agent's events, each shown to `collector` on its way; pushed or iterated, as asked. */
function collectedEvents(
  events: AsyncIterable<AgentEvent>,
  collector: RunCollector,
): AsyncIterable<AgentEvent> {
  return {
    [PUSH_EVENTS](observer: AgentEventObserver): void {
      observeAgentEvents(events, {
        next(event) {
          collector.see(event);
          return observer.next(event);
        },
        error: (error) => observer.error(error),
        complete: () => observer.complete(),
      });
    },
    async *[Symbol.asyncIterator]() {
      for await (const event of events) {
        collector.see(event);
        yield event;
      }
    },
  } as AsyncIterable<AgentEvent>;
}

/** The agent as a task runner runs it, its stream shown to the collector of the run, if any. */
function collectedAgent(agent: Agent): Agent {
  return {
    name: agent.name,
    ...(agent.description === undefined ? {} : { description: agent.description }),
    ...(agent.instructions === undefined ? {} : { instructions: agent.instructions }),
    ...(agent.model === undefined ? {} : { model: agent.model }),
    tools: agent.tools,
    handoffs: agent.handoffs,
    invoke: (input, options) => agent.invoke(input, options),
    stream(input: AgentInput, options?: AgentRunOptions) {
      const events = agent.stream(input, options);
      const collector =
        options?.metadata === undefined ? undefined : collectors.get(options.metadata);
      return collector === undefined ? events : collectedEvents(events, collector);
    },
  };
}

/** Whether a task log event is the agent's own progress (not one the store writes). */
function isProgress(event: TaskEvent): boolean {
  const { type } = event;
  return type !== 'status-update' && type !== 'message' && type !== 'artifact-update';
}

/**
 * Shows the collector the progress of a turn that ran as a task (it answered a pause): the
 * events of the task's log after its last move to `working`, which that answer made.
 */
async function collectTaskTurn(
  runner: TaskRunner,
  taskId: string,
  collector: RunCollector,
): Promise<void> {
  const entries = await runner.events(taskId);
  let start = entries.length;
  while (start > 0) {
    const event = entries[start - 1]?.event;
    if (event?.type === 'status-update' && event.status === 'working') break;
    start -= 1;
  }
  for (const { event } of entries.slice(start)) {
    if (isProgress(event)) collector.see(event as AgentEvent);
  }
}

/**
 * The task runner of each agent over each pair of stores, shared by every Runner made over them:
 * a Runner made again (the gateway makes one per change of its agents) runs its agents' turns on
 * the same task runners, so no store keeps a listener per Runner ever made.
 */
const taskRunners = new WeakMap<
  TaskStore,
  WeakMap<ConversationStore, WeakMap<Agent, TaskRunner>>
>();

function sharedTaskRunner(
  agent: Agent,
  store: TaskStore,
  conversations: ConversationStore,
): TaskRunner {
  let byConversations = taskRunners.get(store);
  if (byConversations === undefined) {
    byConversations = new WeakMap();
    taskRunners.set(store, byConversations);
  }
  let byAgent = byConversations.get(conversations);
  if (byAgent === undefined) {
    byAgent = new WeakMap();
    byConversations.set(conversations, byAgent);
  }
  let runner = byAgent.get(agent);
  if (runner === undefined) {
    runner = createTaskRunner({ agent: collectedAgent(agent), store, conversations });
    byAgent.set(agent, runner);
  }
  return runner;
}

/**
 * The conversations of a Runner's agents: a core TaskRunner per agent (made at its first run,
 * shared with other Runners of the same stores), whose `converse` runs each turn.
 */
export class ConversationRuns {
  readonly store: TaskStore;
  readonly conversations: ConversationStore;

  constructor(store: TaskStore, conversations: ConversationStore) {
    this.store = store;
    this.conversations = conversations;
  }

  /** The task runner of an agent's turns. */
  runnerOf(agent: Agent): TaskRunner {
    return sharedTaskRunner(agent, this.store, this.conversations);
  }

  /**
   * One turn of `agent`: `input` a string, or messages whose last is the new one (the others
   * join the conversation first, so the run gets them as history); the turn answers the task
   * the conversation has waiting, if any (core's `converse`).
   */
  async run(
    agent: Agent,
    input: string | readonly Message[],
    conversationId: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<RunResponse> {
    const runner = this.runnerOf(agent);
    let contextId = conversationId;
    let message: AgentInput;
    if (typeof input === 'string') message = input;
    else {
      message = input[input.length - 1] as Message;
      if (input.length > 1) {
        contextId ??= randomUuid();
        const history = input.slice(0, -1);
        await runner.conversations.append(contextId, { agentName: agent.name, messages: history });
      }
    }
    const metadata: Record<string, unknown> = {};
    const collector = new RunCollector(agent.name);
    collectors.set(metadata, collector);
    let turn: TurnResult;
    try {
      turn = await runner.converse(message, { contextId, signal, metadata });
    } catch (error) {
      throw failureOf(error, collector.agent, signal);
    }
    if (!collector.used && turn.taskId !== undefined) {
      await collectTaskTurn(runner, turn.taskId, collector);
    }
    const toolCalls = collector.toolCalls();
    const response: RunResponse = {
      output: turn.output,
      agent: collector.agent,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      conversation_id: turn.contextId,
    };
    if (turn.status === 'input-required' && turn.taskId !== undefined) {
      response.interruption = { question: turn.output, task_id: turn.taskId };
    }
    return response;
  }
}

/** What a failed turn is reported as: a cancel when the caller left, else the agent's failure. */
function failureOf(
  error: unknown,
  agentName: string,
  signal: AbortSignal | undefined,
): AgentPortError {
  if (signal?.aborted) return new CancellationError(undefined, { cause: error });
  return toAgentFailure(error, agentName);
}
