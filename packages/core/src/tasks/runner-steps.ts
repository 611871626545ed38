import type { AgentInput } from '../agent.ts';
import { ContextNotFoundError } from '../errors/context-not-found-error.ts';
import { InvalidInputError } from '../errors/invalid-input-error.ts';
import { TaskNotWaitingError } from '../errors/task-not-waiting-error.ts';
import { randomUuid } from '../internal/random-uuid.ts';
import { type Message, messageFault, textOf, userMessage } from '../message.ts';
import type { EventSource } from './follow-events.ts';
import { readConversation } from './read-conversation.ts';
import type { RunSlots } from './run-slots.ts';
import type { RunShared } from './run-task.ts';
import type { Task } from './task.ts';
import type { TaskEvent } from './task-event.ts';
import { isInterruptedStatus } from './task-lifecycle.ts';
import type { TaskSubmitOptions, TaskWaitOptions } from './task-runner.ts';
import type { TaskStore, TaskUpdateOptions } from './task-store.ts';
import type { TaskWatchers } from './task-watchers.ts';
import { isConflict } from './task-writes.ts';
import { untilTerminal } from './until-terminal.ts';
import type { Watcher } from './watch-task.ts';

// The steps of a task runner's calls (see task-runner.ts), each a function of its own.

/**
 * Creates a task of an agent in `submitted`, or `working` for a run that starts as it is
 * created. Not async: the store's own promise is handed on (an async function returning a
 * promise adds a promise and three microtask turns to every create).
 */
export function createTask(
  store: TaskStore,
  agentName: string,
  input: AgentInput,
  options: TaskSubmitOptions,
  status: 'submitted' | 'working' = 'submitted',
): Promise<Task> {
  const { id = randomUuid(), metadata = {}, contextId } = options;
  const started = status === 'working' ? { status } : {};
  if (typeof input === 'string') {
    if (input.length === 0) return emptyInput();
    const { messages } = options;
    return store.create({ id, agentName, input, metadata, contextId, messages, ...started });
  }
  const refusal = messageRefusal(input);
  if (refusal !== undefined) return Promise.reject(refusal);
  const text = textOf(input.parts);
  const messages = [...(options.messages ?? []), input];
  return store.create({ id, agentName, input: text, metadata, contextId, messages, ...started });
}

function emptyInput(): Promise<never> {
  return Promise.reject(
    new InvalidInputError('input must be a non-empty string', { field: 'input' }),
  );
}

/** Why a message cannot be a caller's input (not a message, or not the user's), if it cannot. */
function messageRefusal(input: Message): InvalidInputError | undefined {
  const fault = messageFault(input);
  if (fault === undefined && input.role === 'user') return undefined;
  return new InvalidInputError(`input must be a user message, not ${fault ?? 'an agent message'}`, {
    field: 'input',
  });
}

/** The caller's message, from its text or as given. */
function messageOf(input: AgentInput): Message {
  if (typeof input !== 'string') {
    const refusal = messageRefusal(input);
    if (refusal !== undefined) throw refusal;
    return input;
  }
  if (input.length === 0) {
    throw new InvalidInputError('input must be a non-empty string', { field: 'input' });
  }
  return userMessage(input);
}

/** No events: what a watcher told of a change without them is given. */
const NO_EVENTS: readonly TaskEvent[] = Object.freeze([]);

/**
 * Where a runner's `follow` reads one task (as the runner does: another agent's is not found)
 * and hears of its changes: through the runner's own watchers of that task, not a listener of
 * the whole store per follower.
 */
export function runnerSource(
  id: string,
  shared: RunShared,
  get: (id: string) => Promise<Task>,
  watchers: TaskWatchers,
): EventSource {
  return {
    get: () => get(id),
    read: (after) => shared.store.events(id, { after }),
    heard: () => shared.heard.get(id),
    listen(onChange, onEnd) {
      const watcher: Watcher = (task, events) => {
        if (task === undefined) onEnd();
        else onChange(task, events ?? NO_EVENTS);
      };
      watchers.add(id, watcher);
      return () => watchers.remove(id, watcher);
    },
  };
}

/**
 * Waits for a task the caller alone knows of, from before `start` lets it run: resolves once it
 * is terminal or paused (or as `untilTerminal` says); when the signal aborts first, the task is
 * canceled (nobody else knows its id) and the call resolves with it.
 */
export async function settleOf(
  id: string,
  options: TaskWaitOptions,
  get: (id: string) => Promise<Task>,
  watchers: TaskWatchers,
  cancel: (id: string) => Promise<Task>,
  start: () => void,
): Promise<Task> {
  const waiting = untilTerminal(id, options, get, watchers);
  start();
  try {
    return await waiting.task;
  } catch (error) {
    if (options.signal?.aborted !== true) throw error;
    return cancel(id).catch(() => get(id));
  } finally {
    waiting.stop();
  }
}

/** How many earlier messages a run is handed by default. */
export const DEFAULT_MAX_HISTORY = 100;
const WAITING: TaskUpdateOptions = Object.freeze({
  expectedStatus: ['input-required', 'auth-required'] as const,
});

/**
 * The task of a conversation that waits for input, if any; ContextNotFoundError when the
 * conversation is another agent's. The conversation's pointer is a hint, checked on the task.
 */
export async function waitingTaskOf(
  shared: RunShared,
  contextId: string,
): Promise<string | undefined> {
  const conversation = await readConversation(shared.store, shared.conversations, contextId, {
    limit: 0,
  });
  if (conversation === undefined) return undefined;
  if (conversation.agentName !== shared.agent.name) throw new ContextNotFoundError(contextId);
  const { waitingTaskId } = conversation;
  if (waitingTaskId === undefined) return undefined;
  const task = await shared.store.get(waitingTaskId);
  const waits =
    task !== undefined && task.agentName === shared.agent.name && isInterruptedStatus(task.status);
  return waits ? waitingTaskId : undefined;
}

/**
 * Moves a paused task back to `working` with the caller's message in its history, then (with
 * `slots`) queues its run; TaskNotWaitingError when it is not paused, or another answer won.
 */
export async function resumeTask(
  shared: RunShared,
  get: (id: string) => Promise<Task>,
  slots: RunSlots | undefined,
  id: string,
  input: AgentInput,
): Promise<Task> {
  const message = messageOf(input);
  const task = await get(id);
  if (!isInterruptedStatus(task.status)) throw new TaskNotWaitingError(id, task.status);
  let resumed: Task;
  try {
    resumed = await shared.store.update(id, { status: 'working', messages: [message] }, WAITING);
  } catch (error) {
    if (!isConflict(error)) throw error;
    throw new TaskNotWaitingError(id, (await get(id)).status);
  }
  if (slots !== undefined) {
    shared.resuming.add(id);
    slots.start(id);
  }
  return resumed;
}
