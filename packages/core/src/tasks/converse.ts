import type { AgentInput, AgentRunOptions } from '../agent.ts';
import type { InputRequiredEvent } from '../agent-event.ts';
import {
  checkedOutput,
  endedWithoutResult,
  errorFromEvent,
  terminalEventOf,
} from '../agent-output.ts';
import type { ConversationStore } from '../conversations/conversation-store.ts';
import { CancellationError } from '../errors/cancellation-error.ts';
import { remoteTaskError } from '../errors/remote-task-error.ts';
import { TaskNotFoundError } from '../errors/task-not-found-error.ts';
import { randomUuid } from '../internal/random-uuid.ts';
import { agentMessage, type Message, textOf, userMessage } from '../message.ts';
import { readConversation } from './read-conversation.ts';
import type { RunShared } from './run-task.ts';
import { waitingTaskOf } from './runner-steps.ts';
import type { Task } from './task.ts';
import type { TaskRunner } from './task-runner.ts';
import type { TaskStore } from './task-store.ts';
import { pausePatch } from './task-writes.ts';

/** Options of `TaskRunner.converse`. */
export interface ConverseOptions {
  /** The conversation the message belongs to; without one, a new one is started. */
  contextId?: string;
  /** The paused task the message answers. */
  taskId?: string;
  /** Aborting it stops the run (and cancels a task it resumed). */
  signal?: AbortSignal;
  metadata?: Record<string, unknown>;
}

/** What one turn of a conversation came to: the agent's answer, or its question. */
export interface TurnResult {
  /** `completed`, or `input-required` when the agent asks something (then `taskId` waits for the answer). */
  readonly status: 'completed' | 'input-required';
  /** The text of the answer, or of the question. */
  readonly output: string;
  readonly contextId: string;
  /** The task the turn ran as, when it ran as one (it paused, or it answered a pause). */
  readonly taskId?: string;
  /** The agent's question, when it asks one. */
  readonly question?: Message;
}

/** What a turn that paused without a task is made a task of. */
export interface PausedTurn {
  agentName: string;
  contextId: string;
  /** The caller's message the run answered. */
  message: Message;
  end: InputRequiredEvent;
  metadata: Record<string, unknown>;
}

/**
 * Makes a turn that ran without a task and paused a task in `input-required` (created
 * `working`, with the caller's message), its conversation pointing at it, so the answer can
 * come later, anywhere; resolves with the paused task.
 */
export async function pauseAsTask(
  store: TaskStore,
  conversations: ConversationStore,
  turn: PausedTurn,
): Promise<Task> {
  const { agentName, contextId, message, end, metadata } = turn;
  const patch = pausePatch(end);
  const created = await store.create({
    id: randomUuid(),
    contextId,
    agentName,
    input: textOf(message.parts),
    metadata,
    messages: [message],
    status: 'working',
  });
  await conversations.append(contextId, {
    agentName,
    messages: [message, patch.statusMessage],
    waitingTaskId: created.id,
  });
  return store.update(created.id, patch, { expectedStatus: 'working' });
}

/** The turn a task's run came to, or the error it ended with. */
export function turnOfTask(task: Task): TurnResult {
  const { status, contextId, id: taskId } = task;
  if (status === 'completed') {
    return { status, output: task.output ?? '', contextId, taskId };
  }
  if (status === 'input-required' || status === 'auth-required') {
    const question = task.statusMessage;
    return {
      status: 'input-required',
      output: question === undefined ? '' : textOf(question.parts),
      contextId,
      taskId,
      ...(question === undefined ? {} : { question }),
    };
  }
  if (status === 'canceled') throw new CancellationError('The task was canceled');
  throw remoteTaskError({
    agentName: task.agentName,
    code: task.error?.code ?? 'agent_failure',
    message: task.error?.message,
  });
}

/**
 * Runs one turn that answers no paused task without a task at all (the cheap way: most turns
 * complete), its turn recorded in the conversation; a run that pauses becomes a task then, in
 * `input-required` with the message and the question in its history, so the answer can come
 * later, anywhere.
 */
export async function directTurn(
  shared: RunShared,
  input: AgentInput,
  options: ConverseOptions,
): Promise<TurnResult> {
  const { agent, store, conversations } = shared;
  const contextId = options.contextId ?? conversations.newContextId();
  const runOptions: AgentRunOptions = { contextId };
  if (options.signal !== undefined) runOptions.signal = options.signal;
  if (options.metadata !== undefined) runOptions.metadata = options.metadata;
  if (options.contextId !== undefined) {
    const conversation = await readConversation(shared.store, conversations, contextId, {
      limit: shared.maxHistory,
    });
    if (conversation !== undefined) runOptions.history = conversation.messages;
  }
  const end = await terminalEventOf(agent.stream(input, runOptions), undefined, options.signal);
  const message = typeof input === 'string' ? userMessage(input) : input;
  if (end === undefined || end.type === 'error') {
    throw end === undefined ? endedWithoutResult(agent.name) : errorFromEvent(end, agent.name);
  }
  if (end.type === 'done') {
    const output = checkedOutput(end.output, agent.name);
    const messages = [message, agentMessage(output)];
    await conversations.append(contextId, { agentName: agent.name, messages });
    return { status: 'completed', output, contextId };
  }
  const paused = await pauseAsTask(store, conversations, {
    agentName: agent.name,
    contextId,
    message,
    end,
    metadata: options.metadata ?? {},
  });
  return turnOfTask(paused);
}

/** `TaskRunner.converse`: a paused task answered through the runner, else a direct turn. */
export function converseTurn(
  shared: RunShared,
  get: (id: string) => Promise<Task>,
  runner: Pick<TaskRunner, 'resumeAndWait'>,
  input: AgentInput,
  options: ConverseOptions,
): Promise<TurnResult> {
  // A turn in no conversation yet answers nothing: straight to the agent, no step between.
  if (options.taskId === undefined && options.contextId === undefined) {
    return directTurn(shared, input, options);
  }
  return answeringTurn(shared, get, runner, input, options);
}

async function answeringTurn(
  shared: RunShared,
  get: (id: string) => Promise<Task>,
  runner: Pick<TaskRunner, 'resumeAndWait'>,
  input: AgentInput,
  options: ConverseOptions,
): Promise<TurnResult> {
  const { taskId, contextId, signal } = options;
  if (taskId !== undefined && contextId !== undefined) {
    // A task of another conversation is not this one's to answer.
    if ((await get(taskId)).contextId !== contextId) throw new TaskNotFoundError(taskId);
  }
  const waiting =
    taskId ?? (contextId === undefined ? undefined : await waitingTaskOf(shared, contextId));
  if (waiting === undefined) return directTurn(shared, input, options);
  const task = await runner.resumeAndWait(waiting, input, signal === undefined ? {} : { signal });
  return turnOfTask(task);
}
