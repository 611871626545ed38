import type { Message, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import type { Agent, Message as CoreMessage, Task as CoreTask, TaskRunner } from '@agentport/core';
import {
  CancellationError,
  createTaskRunner,
  isInterruptedStatus,
  isTerminalStatus,
  TaskNotWaitingError,
} from '@agentport/core';
import { noteCreatedTask } from '../store/core-task-store.ts';
import { a2aTaskOf, coreMessageOf } from '../store/task-view.ts';
import { publishTaskLog } from './log-bridge.ts';
import { canceledTask, type MessageReplyRequest, replyToMessage } from './message-reply.ts';
import { DEFAULT_MAX_CONCURRENCY, RunSlots } from './run-slots.ts';
import { TaskPublisher } from './task-publisher.ts';
import { now } from './timestamp.ts';

interface Run {
  readonly finished: Promise<void>;
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

/** Options of {@link createAgentExecutor}. */
export interface AgentExecutorOptions {
  /** The agent run for each task and message answer. */
  agent: Agent;
  /**
   * How many runs of the agent (tasks and message answers) go at once (default 16, an integer of
   * at least 1); the others wait their turn, first come first served, a task in `submitted`.
   */
  maxConcurrency?: number;
  /**
   * The core runner that runs its tasks, in its store (default: a new one for `agent`, in
   * memory, running `maxConcurrency` at once). Share one with another surface (the hand-rolled
   * A2A server's `runner`) and both serve the same tasks: each reads, follows and cancels the
   * other's. It must run `agent`.
   */
  runner?: TaskRunner | undefined;
}

/** An executor that can also answer with a message, and cancel everything it runs (at shutdown). */
export interface ClosableAgentExecutor extends AgentExecutor {
  /** The core runner its tasks run in (the one it was given, or its own). */
  readonly runner: TaskRunner;
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

/** What one executor's parts share: its runner (and agent), its reply slots, what runs now. */
interface ExecutorState {
  readonly runner: TaskRunner;
  /** Whether it made its runner (then it closes it). */
  readonly ownsRunner: boolean;
  /** The turns of message answers (tasks take the runner's). */
  readonly slots: RunSlots;
  /** The runs of tasks, by task id. */
  readonly runs: Map<string, Run>;
  /** The tasks CancelTask named while their run was still submitting them. */
  readonly cancelRequested: Set<string>;
  /** The runs answering with a message (they have no task id). */
  readonly replies: Set<AbortController>;
  closed: boolean;
}

function cancelReply(controller: AbortController): void {
  controller.abort(new CancellationError('The run was canceled'));
}

/** Cancels a task in the runner; one that ended meanwhile (or is gone) is left as it is. */
function cancelQuietly(runner: TaskRunner, taskId: string): void {
  runner.cancel(taskId).catch(() => undefined);
}

/** Cancels every run, and every run asked for from now on. */
function closeExecutor(state: ExecutorState): void {
  state.closed = true;
  for (const taskId of state.runs.keys()) cancelQuietly(state.runner, taskId);
  for (const controller of state.replies) cancelReply(controller);
  if (state.ownsRunner) void state.runner.close();
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
    return await replyToMessage(state.runner, request, controller.signal);
  } finally {
    if (holding) slots.release();
    replies.delete(controller);
    caller?.removeEventListener('abort', onAbort);
  }
}

/** A new run of `taskId`, registered until `markFinished`. */
function startRun(state: ExecutorState, taskId: string): { markFinished: () => void } {
  let markFinished = () => {};
  const run: Run = {
    finished: new Promise<void>((resolve) => {
      markFinished = resolve;
    }),
  };
  state.runs.set(taskId, run);
  return { markFinished };
}

/** Where a request's run follows its task's log: which task, from which event, and how it opens. */
interface Followed {
  /** The task's id: the SDK's, or the waiting task of the context the message answers. */
  readonly taskId: string;
  /** The sequence number to follow its log from. */
  readonly after: number;
  /** Whether it was under way already (its event is published as it is). */
  readonly resumed: boolean;
  /** The task as the runner has it, to open the bus with (else the SDK's copy). */
  readonly task?: Task;
  /** The task as the runner created it, to follow its log from without reading it first. */
  readonly created?: CoreTask;
}

/**
 * A follow-up to a task the runner has: a paused one (`input-required`, `auth-required`) is
 * resumed with the caller's message (its agent runs again, handed the history and its state);
 * a running one is followed; one that ended meanwhile is answered with its end (its last event).
 */
async function followUp(
  runner: TaskRunner,
  existing: CoreTask,
  message: CoreMessage,
): Promise<Followed> {
  const { id } = existing;
  if (isInterruptedStatus(existing.status)) {
    try {
      const resumed = await runner.resume(id, message);
      return { taskId: id, after: resumed.seq, resumed: true, task: a2aTaskOf(resumed) };
    } catch (error) {
      // Another answer won the race: this message joins the run it started.
      if (!(error instanceof TaskNotWaitingError)) throw error;
      return followUp(runner, await runner.get(id), message);
    }
  }
  const after = isTerminalStatus(existing.status) ? existing.seq - 1 : existing.seq;
  return { taskId: id, after, resumed: true };
}

/**
 * Submits a new task to the runner (named by the SDK's ids, its input the caller's message with
 * all its parts), or finds the task a follow-up names (see followUp). A message whose context
 * has a task waiting for input answers that task instead (the runner's submit resumes it). A new
 * run asked for once closed resolves undefined.
 */
async function taskToFollow(
  state: ExecutorState,
  requestContext: RequestContext,
): Promise<Followed | undefined> {
  const { runner } = state;
  const { taskId, contextId, userMessage } = requestContext;
  const message = coreMessageOf(userMessage);
  if (requestContext.task !== undefined) {
    const existing = await runner.get(taskId).catch(() => undefined);
    if (existing !== undefined) return followUp(runner, existing, message);
  }
  if (state.closed) return undefined;
  // A context named after the task is its own (new) one: no conversation to read for it.
  const created = await runner.submit(
    message,
    contextId === taskId
      ? { id: taskId, startWorking: true }
      : { id: taskId, contextId, startWorking: true },
  );
  if (created.id !== taskId) {
    return { taskId: created.id, after: created.seq, resumed: true, task: a2aTaskOf(created) };
  }
  noteCreatedTask(runner, created);
  return { taskId, after: created.seq, resumed: requestContext.task !== undefined, created };
}

/**
 * Runs a task on its bus: submitted to the core runner (`submitted` while every slot is taken),
 * its log then published on the bus until it ends.
 */
async function executeInTurn(
  state: ExecutorState,
  requestContext: RequestContext,
  eventBus: ExecutionEventBus,
): Promise<void> {
  const { taskId, contextId } = requestContext;
  const current = state.runs.get(taskId);
  if (current !== undefined) {
    // A follow-up message to a task that is still running joins it: this request's queue
    // sees the running agent's events on the shared bus until the task ends.
    await current.finished;
    return;
  }
  const { markFinished } = startRun(state, taskId);
  try {
    const follow = await taskToFollow(state, requestContext);
    const task = requestContext.task ?? newTask(requestContext);
    if (follow === undefined) {
      // Closed before it could start: it says so and ends.
      const publisher = new TaskPublisher(eventBus, taskId, contextId);
      publisher.wait(task);
      publisher.canceled();
      return;
    }
    // A CancelTask that came while the task was being submitted is carried out now.
    if (state.cancelRequested.delete(taskId)) cancelQuietly(state.runner, follow.taskId);
    const opened = follow.task ?? task;
    const publisher = new TaskPublisher(eventBus, follow.taskId, opened.contextId);
    await publishTaskLog(state.runner, opened, follow.after, publisher, {
      resumed: follow.resumed,
      ...(follow.created === undefined ? {} : { created: follow.created }),
    });
  } finally {
    state.runs.delete(taskId);
    state.cancelRequested.delete(taskId);
    markFinished();
  }
}

/** Cancels the run of `taskId`, or, with none here (it is ending), publishes its final event. */
function cancelTaskRun(state: ExecutorState, taskId: string, eventBus: ExecutionEventBus): void {
  cancelQuietly(state.runner, taskId);
  if (state.runs.has(taskId)) {
    // Its run may still be submitting it: the cancel is repeated once the runner has it.
    state.cancelRequested.add(taskId);
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
 * Creates the SDK executor that runs a core agent for each A2A task, as a task of a core
 * `TaskRunner` (the same task, by the same id, in the runner's store), and publishes the task's
 * log on the SDK's bus: the task, working, text deltas appended to the `output` artifact, tool
 * calls, tool results and handoffs as working-status messages, and its end, completed (final
 * output), failed (agent error) or canceled (CancelTask, or a cancel through any surface sharing
 * the runner, aborts the agent's signal). At most `maxConcurrency` runs go at once: a task that
 * waits for its turn is published `submitted`, says `working` when it starts, and CancelTask ends
 * it canceled without running the agent.
 *
 * @example
 * const handler = new DefaultRequestHandler(
 *   card,
 *   new InMemoryTaskStore(),
 *   createAgentExecutor({ agent }),
 * );
 */
export function createAgentExecutor(options: AgentExecutorOptions): ClosableAgentExecutor {
  const maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  // Checked first: the runner's own check would name its own option.
  const slots = new RunSlots(maxConcurrency);
  const { agent } = options;
  if (options.runner !== undefined && options.runner.agent.name !== agent.name) {
    throw new TypeError(`runner runs agent '${options.runner.agent.name}', not '${agent.name}'`);
  }
  const state: ExecutorState = {
    runner: options.runner ?? createTaskRunner({ agent, maxConcurrency }),
    ownsRunner: options.runner === undefined,
    slots,
    runs: new Map(),
    cancelRequested: new Set(),
    replies: new Set(),
    closed: false,
  };
  return {
    runner: state.runner,
    close: () => closeExecutor(state),
    reply: (request) => replyInTurn(state, request),
    execute: (requestContext, eventBus) => executeInTurn(state, requestContext, eventBus),
    async cancelTask(taskId, eventBus) {
      cancelTaskRun(state, taskId, eventBus);
    },
  };
}
