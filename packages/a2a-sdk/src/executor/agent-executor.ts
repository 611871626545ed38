import type { Message, Part, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import type { Agent, AgentEvent as CoreAgentEvent } from '@agentport/core';
import { CancellationError } from '@agentport/core';
import { checkedOutput, pacedEvents } from '@agentport/core/internal';
import { canceledTask, type MessageReplyRequest, replyToMessage } from './message-reply.ts';
import { dataPart, failureParts, textOfParts, textPart } from './parts.ts';
import { DEFAULT_MAX_CONCURRENCY, RunSlots } from './run-slots.ts';
import { TaskPublisher } from './task-publisher.ts';
import { now } from './timestamp.ts';

interface Run {
  readonly controller: AbortController;
  readonly finished: Promise<void>;
  canceled: boolean;
}

function progressParts(event: CoreAgentEvent): Part[] | undefined {
  switch (event.type) {
    case 'tool-call':
      return [textPart(`Calling tool '${event.name}'`), dataPart(event)];
    case 'tool-result':
      return [textPart(`Tool '${event.name}' returned`), dataPart(event)];
    case 'handoff':
      return [textPart(`Handing off from '${event.from}' to '${event.to}'`), dataPart(event)];
    default:
      return undefined;
  }
}

function newTask(requestContext: RequestContext): Task {
  return {
    id: requestContext.taskId,
    contextId: requestContext.contextId,
    status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
    artifacts: [],
    history: [requestContext.userMessage],
    metadata: undefined,
  };
}

async function runTask(
  agent: Agent,
  requestContext: RequestContext,
  publisher: TaskPublisher,
  run: Run,
): Promise<void> {
  const { taskId, contextId } = requestContext;
  const input = textOfParts(requestContext.userMessage.parts);
  let streamed = '';
  const events = pacedEvents(
    agent.stream(input, { signal: run.controller.signal, metadata: { taskId, contextId } }),
  );
  for await (const event of events) {
    if (event.type === 'text-delta') {
      if (event.delta === '') continue;
      publisher.delta(event.delta);
      streamed += event.delta;
    } else if (event.type === 'done') {
      const output = checkedOutput(event.output, agent.name);
      if (output !== streamed) publisher.output(output, { replace: true, lastChunk: true });
      publisher.status(TaskState.TASK_STATE_COMPLETED);
      return;
    } else if (event.type === 'error') {
      if (run.canceled) {
        publisher.canceled();
      } else {
        publisher.status(TaskState.TASK_STATE_FAILED, [textPart(event.message), dataPart(event)]);
      }
      return;
    } else {
      publisher.status(TaskState.TASK_STATE_WORKING, progressParts(event));
    }
  }
  publisher.status(TaskState.TASK_STATE_FAILED, [
    textPart(`Agent '${agent.name}' ended without a result`),
  ]);
}

/** Options of {@link createAgentExecutor}. */
export interface AgentExecutorOptions {
  /** The agent run for each task and message answer. */
  agent: Agent;
  /**
   * How many runs of the agent (tasks and message answers) go at once (default 16, an integer of
   * at least 1); the others wait their turn, first come first served, a task in `submitted`.
   */
  maxConcurrency?: number;
}

/** An executor that can also answer with a message, and cancel everything it runs (at shutdown). */
export interface ClosableAgentExecutor extends AgentExecutor {
  /**
   * Runs the agent to its end and answers with a Message holding its output, without a task; a
   * run that fails or is canceled answers with its failed or canceled Task instead (to store).
   * The agent is aborted when `request.signal` is.
   */
  reply(request: MessageReplyRequest): Promise<Message | Task>;
  /**
   * Cancels every running task and reply: each ends canceled and its agent's signal is aborted.
   * Runs asked for afterwards (a request whose body was still coming in) end canceled at once,
   * without running the agent.
   */
  close(): void;
}

/** What one executor's parts share: its agent, its run slots and what it is running now. */
interface ExecutorState {
  readonly agent: Agent;
  readonly slots: RunSlots;
  /** The runs of tasks, by task id. */
  readonly runs: Map<string, Run>;
  /** The runs answering with a message (they have no task id). */
  readonly replies: Set<AbortController>;
  closed: boolean;
}

function cancelReply(controller: AbortController): void {
  controller.abort(new CancellationError('The run was canceled'));
}

function cancelRun(run: Run): void {
  run.canceled = true;
  run.controller.abort(new CancellationError('The task was canceled'));
}

/** Cancels every run, and every run asked for from now on. */
function closeExecutor(state: ExecutorState): void {
  state.closed = true;
  for (const run of state.runs.values()) cancelRun(run);
  for (const controller of state.replies) cancelReply(controller);
}

/** Runs the agent for a message answer, in its turn, aborted when the caller goes away. */
async function replyInTurn(
  state: ExecutorState,
  request: MessageReplyRequest,
): Promise<Message | Task> {
  const { slots, replies } = state;
  const controller = new AbortController();
  const caller = request.signal;
  const onAbort = () => controller.abort(new CancellationError('The caller went away'));
  if (caller?.aborted) onAbort();
  else caller?.addEventListener('abort', onAbort, { once: true });
  if (state.closed) cancelReply(controller);
  replies.add(controller);
  let holding = slots.tryAcquire();
  try {
    if (!holding) {
      // A waiting reply leaves the queue when its caller goes away (or at close()).
      holding = await slots.acquire(controller.signal);
      if (!holding) return canceledTask(request, '');
    }
    return await replyToMessage(state.agent, request, controller.signal);
  } finally {
    if (holding) slots.release();
    replies.delete(controller);
    caller?.removeEventListener('abort', onAbort);
  }
}

/** A new run of `taskId`, registered (canceled at once when the executor is closed). */
function startRun(state: ExecutorState, taskId: string): { run: Run; markFinished: () => void } {
  let markFinished = () => {};
  const run: Run = {
    controller: new AbortController(),
    finished: new Promise<void>((resolve) => {
      markFinished = resolve;
    }),
    canceled: false,
  };
  // Closed: it ends canceled at once (the agent's run is never started on an aborted signal).
  if (state.closed) cancelRun(run);
  state.runs.set(taskId, run);
  return { run, markFinished };
}

/** Runs the agent for a task on its bus, in its turn (`submitted` while every slot is taken). */
async function executeInTurn(
  state: ExecutorState,
  requestContext: RequestContext,
  eventBus: ExecutionEventBus,
): Promise<void> {
  const { agent, slots } = state;
  const { taskId, contextId } = requestContext;
  const current = state.runs.get(taskId);
  if (current !== undefined) {
    // A follow-up message to a task that is still running joins it: this request's queue
    // sees the running agent's events on the shared bus until the task ends.
    await current.finished;
    return;
  }
  const { run, markFinished } = startRun(state, taskId);
  const publisher = new TaskPublisher(eventBus, taskId, contextId);
  const task = requestContext.task ?? newTask(requestContext);
  let holding = slots.tryAcquire();
  try {
    if (holding) publisher.start(task);
    else {
      publisher.wait(task);
      // CancelTask (or close()) of a waiting task takes it out of the queue: it never runs.
      holding = await slots.acquire(run.controller.signal);
      if (!holding) {
        publisher.canceled();
        return;
      }
      publisher.resume();
    }
    await runTask(agent, requestContext, publisher, run);
  } catch (error) {
    // Never let a raw error reach the SDK: it would put its message on the wire.
    publisher.status(TaskState.TASK_STATE_FAILED, failureParts(error, agent.name));
  } finally {
    if (holding) slots.release();
    state.runs.delete(taskId);
    markFinished();
  }
}

/** Cancels the run of `taskId`, or, with none here (it is ending), publishes its final event. */
function cancelTaskRun(state: ExecutorState, taskId: string, eventBus: ExecutionEventBus): void {
  const run = state.runs.get(taskId);
  if (run !== undefined) {
    cancelRun(run);
    return;
  }
  // Nothing runs here for this task (it is ending): the SDK waits for a final event.
  eventBus.publish(
    AgentEvent.statusUpdate({
      taskId,
      contextId: '',
      status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() },
      metadata: undefined,
    }),
  );
}

/**
 * Creates the SDK executor that runs a core agent for each A2A task: it publishes the task, moves
 * it to working, appends text deltas to the `output` artifact, shows tool calls, tool results and
 * handoffs as working-status messages, and ends the task completed (final output), failed (agent
 * error) or canceled (CancelTask aborts the agent's signal). At most `maxConcurrency` runs go at
 * once: a task that waits for its turn is published `submitted`, says `working` when it starts,
 * and CancelTask ends it canceled without running the agent.
 *
 * @example
 * const handler = new DefaultRequestHandler(
 *   card,
 *   new InMemoryTaskStore(),
 *   createAgentExecutor({ agent }),
 * );
 */
export function createAgentExecutor(options: AgentExecutorOptions): ClosableAgentExecutor {
  const state: ExecutorState = {
    agent: options.agent,
    slots: new RunSlots(options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY),
    runs: new Map(),
    replies: new Set(),
    closed: false,
  };
  return {
    close: () => closeExecutor(state),
    reply: (request) => replyInTurn(state, request),
    execute: (requestContext, eventBus) => executeInTurn(state, requestContext, eventBus),
    async cancelTask(taskId, eventBus) {
      cancelTaskRun(state, taskId, eventBus);
    },
  };
}
