import type { Agent, AgentInput } from '../agent.ts';
import type { ConversationStore } from '../conversations/conversation-store.ts';
import { createMemoryConversationStore } from '../conversations/memory-conversation-store.ts';
import { TaskNotFoundError } from '../errors/task-not-found-error.ts';
import type { Message } from '../message.ts';
import { type Claims, startClaims } from './claims.ts';
import { type ConverseOptions, converseTurn, type TurnResult } from './converse.ts';
import { followEvents, type TaskFollowOptions } from './follow-events.ts';
import { createMemoryTaskStore } from './memory-task-store.ts';
import { RunSlots } from './run-slots.ts';
import { type RunShared, runTask } from './run-task.ts';
import {
  createTask,
  DEFAULT_MAX_HISTORY,
  resumeTask,
  runnerSource,
  settleOf,
  waitingTaskOf,
} from './runner-steps.ts';
import type { Task } from './task.ts';
import type { TaskLogEntry } from './task-event.ts';
import { isTerminalStatus } from './task-lifecycle.ts';
import type { TaskEventsOptions, TaskListOptions, TaskPage, TaskStore } from './task-store.ts';
import { TaskWatchers } from './task-watchers.ts';
import { cancelTask, cancelUnfinished } from './task-writes.ts';
import { waitForTask } from './until-terminal.ts';
import { watchTask } from './watch-task.ts';

/** Options of {@link createTaskRunner}. */
export interface TaskRunnerOptions {
  /** The agent every task runs. */
  agent: Agent;
  /** Where tasks live; defaults to a new in-memory store. Several runners may share one. */
  store?: TaskStore;
  /**
   * How many tasks' agents run at once; the rest wait in `submitted` (default 16). A slot frees
   * once its agent is done, while its task's end is written.
   */
  maxConcurrency?: number;
  /**
   * Where conversations live: each finished turn is appended, each run reads the earlier messages
   * of its `contextId`; defaults to a new in-memory store. Several runners may share one.
   */
  conversations?: ConversationStore;
  /** How many earlier messages of its conversation a run is handed at most, the newest (default 100). */
  maxHistory?: number;
  /**
   * Whether it also runs the agent's tasks other runners left `submitted` in a shared store (a
   * store of several processes): while it has free slots it takes them, at start, as a slot
   * frees and every `claimIntervalMs`. Default false.
   */
  claimTasks?: boolean;
  /** How often a runner that claims tasks looks for them, in milliseconds (default 1,000). */
  claimIntervalMs?: number;
}

/** Options of {@link TaskRunner.wait} and {@link TaskRunner.watch}. */
export interface TaskWaitOptions {
  signal?: AbortSignal;
  /** Give up after this long and resolve with the task as it is (wait only). */
  timeoutMs?: number;
}

/** What a task is created with besides its input. */
export interface TaskSubmitOptions {
  /**
   * The task's id (default: a new UUID), for a surface that names its tasks itself (the A2A SDK's
   * request handler does); an id the store already holds is refused with InvalidInputError.
   */
  id?: string;
  metadata?: Record<string, unknown>;
  /**
   * The conversation it joins; without one, the store starts a new one. When a task of that
   * conversation waits for input, the message answers it instead (see `resume`); a conversation
   * of another agent is refused with ContextNotFoundError.
   */
  contextId?: string;
  /** Its history to begin with (the caller's message, as a surface received it). */
  messages?: readonly Message[];
  /**
   * `submit` only: with a slot free, create the task `working` (its log still says `submitted`
   * first), one store step where a create and a start take two, and return it so; default false,
   * the task returned `submitted`. `submitAndWait` always does, its caller seeing only the end.
   */
  startWorking?: boolean;
}

/** Runs an agent's tasks through their lifecycle, with bounded concurrency and cancellation. */
export interface TaskRunner {
  readonly agent: Agent;
  readonly store: TaskStore;
  readonly conversations: ConversationStore;
  /**
   * Creates a task in `submitted` and schedules it; resolves with the created task. A message
   * (rather than its text) is the task's first history entry. When `contextId` names a
   * conversation whose task waits for input, the message answers that task (`resume`).
   */
  submit(input: AgentInput, options?: TaskSubmitOptions): Promise<Task>;
  /**
   * Submits a task and waits for it, as `submit` then `wait` would, but watching it from its
   * creation (no change can slip by, nothing is read back): resolves with the task once terminal,
   * or as it is when `timeoutMs` runs out or the runner closes. When `signal` aborts first, the
   * task is canceled (nobody else knows its id) and the call resolves with it.
   */
  submitAndWait(input: AgentInput, options?: TaskWaitOptions & TaskSubmitOptions): Promise<Task>;
  /**
   * Sends the caller's next message to a task waiting for input (`input-required` or
   * `auth-required`): the message joins its history and the task runs again (`working`), its
   * agent handed the conversation so far and the state its pause left. TaskNotFoundError;
   * TaskNotWaitingError (409) when the task is not waiting (finished, or running).
   */
  resume(id: string, input: AgentInput): Promise<Task>;
  /** `resume`, then waits for the task as `submitAndWait` does (a signal that aborts cancels it). */
  resumeAndWait(id: string, input: AgentInput, options?: TaskWaitOptions): Promise<Task>;
  /**
   * One turn of a conversation, for a synchronous surface (an invoke): the message answers the
   * paused task `taskId` names, or the one its `contextId` has waiting (run as a task, waited
   * for); else the agent runs without a task (no queue, no `maxConcurrency` slot) and the turn is
   * recorded in the conversation, unless it pauses: then it becomes a task in `input-required`.
   * Resolves with the answer or the question; rejects with the run's error (TaskNotFoundError,
   * TaskNotWaitingError, ContextNotFoundError as `resume` and `submit` do).
   */
  converse(input: AgentInput, options?: ConverseOptions): Promise<TurnResult>;
  /**
   * The id of the task of a conversation that waits for input (undefined when none does, or the
   * conversation is unknown); ContextNotFoundError when it is another agent's conversation.
   */
  waitingIn(contextId: string): Promise<string | undefined>;
  /** The task, or a TaskNotFoundError (also for a task of another agent in a shared store). */
  get(id: string): Promise<Task>;
  /** This agent's tasks, newest first. */
  list(options?: Omit<TaskListOptions, 'agentName'>): Promise<TaskPage>;
  /**
   * Cancels a submitted or working task and aborts its agent; idempotent on a canceled task;
   * TaskNotCancelableError on a completed or failed one.
   */
  cancel(id: string): Promise<Task>;
  /**
   * Resolves with the task once it is terminal, or as it is when `timeoutMs` runs out or the
   * runner closes; rejects with the signal's reason when `signal` aborts.
   */
  wait(id: string, options?: TaskWaitOptions): Promise<Task>;
  /**
   * Yields the task now and after every change, until it is terminal, `signal` aborts or the
   * runner closes; a consumer slower than the changes gets the newest task when it asks again
   * (the changes in between are skipped, each task being whole).
   */
  watch(id: string, options?: TaskWaitOptions): AsyncIterable<Task>;
  /** The task's events after `options.after` (see `TaskStore.events`); TaskNotFoundError for another agent's. */
  events(id: string, options?: TaskEventsOptions): Promise<readonly TaskLogEntry[]>;
  /**
   * Yields the task's events after `options.after`, then each new one as it is appended, until
   * the task ends, `signal` aborts or the runner closes: nothing missed, nothing twice (see
   * `followTaskEvents`). Rejects as `events` does (EventsAheadError, EventsExpiredError).
   */
  follow(id: string, options?: TaskFollowOptions): AsyncIterable<TaskLogEntry>;
  /**
   * Cancels every task this runner is running or has queued, stops listening to the store, and
   * ends every wait and watch (a wait resolves with the task as it is): once closed, nothing
   * would tell them of a change, as for a task another process runs in a shared store.
   */
  close(): Promise<void>;
}

/**
 * Creates a task runner for one agent.
 *
 * @example
 * const runner = createTaskRunner({ agent: echo, maxConcurrency: 4 });
 * const task = await runner.submit('hello');
 * const done = await runner.wait(task.id); // done.output === 'hello'
 */
export function createTaskRunner(options: TaskRunnerOptions): TaskRunner {
  const shared = sharedOf(options);
  const { agent, store, conversations } = shared;
  const watchers = new TaskWatchers();
  const { slots, claims, unsubscribe } = runSlotsOf(shared, options, watchers);

  async function get(id: string): Promise<Task> {
    const task = await store.get(id);
    if (task === undefined || task.agentName !== agent.name) throw new TaskNotFoundError(id);
    return task;
  }
  const cancel = (id: string): Promise<Task> => cancelTask(store, get, id);
  const resume = (id: string, input: AgentInput): Promise<Task> =>
    resumeTask(shared, get, slots, id, input);
  const waitingIn = (contextId: string | undefined): Promise<string | undefined> | undefined =>
    contextId === undefined ? undefined : waitingTaskOf(shared, contextId);

  return {
    agent,
    store,
    conversations,
    get,
    cancel,
    resume,
    waitingIn: (contextId) => waitingTaskOf(shared, contextId),
    async submit(input, submitOptions = {}) {
      const waiting = await waitingIn(submitOptions.contextId);
      if (waiting !== undefined) return resume(waiting, input);
      const eager = submitOptions.startWorking === true;
      const { task, start } = await createToRun(shared, slots, input, submitOptions, eager);
      start();
      return task;
    },
    list(listOptions = {}) {
      return store.list({ ...listOptions, agentName: agent.name });
    },
    async submitAndWait(input, waitOptions = {}) {
      waitOptions.signal?.throwIfAborted();
      const waiting = await waitingIn(waitOptions.contextId);
      if (waiting !== undefined) return this.resumeAndWait(waiting, input, waitOptions);
      const { task, start } = await createToRun(shared, slots, input, waitOptions, true);
      // Watched before it can start: every change is seen, nothing needs reading back.
      return settleOf(task.id, waitOptions, get, watchers, cancel, start);
    },
    async resumeAndWait(id, input, waitOptions = {}) {
      waitOptions.signal?.throwIfAborted();
      // Watched from the resume on (before it the task is paused: a wait would end at once).
      const resumed = await resumeTask(shared, get, undefined, id, input);
      return settleOf(resumed.id, waitOptions, get, watchers, cancel, () => {
        shared.resuming.add(id);
        slots.start(id);
      });
    },
    converse(input, converseOptions = {}) {
      return converseTurn(shared, get, this, input, converseOptions);
    },
    wait(id, waitOptions = {}) {
      return waitForTask(id, waitOptions, get, watchers);
    },
    watch(id, watchOptions = {}) {
      return watchTask(id, watchOptions.signal, get, watchers.add, watchers.remove);
    },
    async events(id, eventsOptions) {
      await get(id);
      return store.events(id, eventsOptions);
    },
    follow(id, followOptions) {
      return followEvents(runnerSource(id, shared, get, watchers), followOptions);
    },

    close: () => {
      claims?.stop();
      return closeRunner(store, slots, watchers, unsubscribe);
    },
  };
}

/**
 * A runner's run slots, listening to its store (a cancel from any process frees a slot, every
 * change reaches the watchers), and its claims when it takes other runners' submitted tasks.
 */
function runSlotsOf(
  shared: RunShared,
  options: TaskRunnerOptions,
  watchers: TaskWatchers,
): { slots: RunSlots; claims: Claims | undefined; unsubscribe: () => void } {
  const { agent, store } = shared;
  let claims: Claims | undefined;
  // Only a claiming runner looks for more work as a run ends: no promise more per run otherwise.
  const slots = new RunSlots(
    options.maxConcurrency ?? 16,
    options.claimTasks === true
      ? (id, controller, running) =>
          runTask(shared, id, controller, running).finally(() => claims?.poll())
      : (id, controller, running) => runTask(shared, id, controller, running),
  );
  const unsubscribe = store.subscribe((task, events) => {
    if (task.agentName !== agent.name) return;
    // Whichever process canceled it, the agent running it here stops now and frees its slot.
    if (task.status === 'canceled') slots.canceled(task.id);
    const heard = shared.heard.get(task.id);
    if (heard !== undefined) {
      // Ended (a queued task canceled, say): nothing more to hear, whether or not it ran here.
      if (isTerminalStatus(task.status)) shared.heard.delete(task.id);
      else if (task.seq > heard) shared.heard.set(task.id, task.seq);
    }
    watchers.notify(task, events);
  });
  if (options.claimTasks === true) {
    claims = startClaims(store, agent.name, slots, {
      intervalMs: options.claimIntervalMs ?? 1_000,
      retryLost: agent.retrySafe === true,
      rerun: (id) => {
        // It is working already: it runs as a resumed task does, without a start.
        shared.resuming.add(id);
        slots.start(id);
      },
    });
  }
  return { slots, claims, unsubscribe };
}

/**
 * Creates a task for a run, and how to start it: `eager` with a slot free, the slot is taken and
 * the task created `working` (one step, where a create and a start take two); else it is created
 * `submitted` and queued.
 */
async function createToRun(
  shared: RunShared,
  slots: RunSlots,
  input: AgentInput,
  options: TaskSubmitOptions,
  eager: boolean,
): Promise<{ task: Task; start: () => void }> {
  const { store, agent } = shared;
  if (!eager || !slots.reserve()) {
    const task = await createTask(store, agent.name, input, options);
    return {
      task,
      start: () => {
        shared.heard.set(task.id, task.seq);
        slots.start(task.id);
      },
    };
  }
  let task: Task;
  try {
    task = await createTask(store, agent.name, input, options, 'working');
  } catch (error) {
    slots.unreserve();
    throw error;
  }
  return {
    task,
    start: () => {
      shared.started.set(task.id, task);
      shared.heard.set(task.id, task.seq);
      slots.runReserved(task.id);
    },
  };
}

/** What every run of a runner shares, from its options. */
function sharedOf(options: TaskRunnerOptions): RunShared {
  return {
    agent: options.agent,
    store: options.store ?? createMemoryTaskStore(),
    conversations: options.conversations ?? createMemoryConversationStore(),
    maxHistory: options.maxHistory ?? DEFAULT_MAX_HISTORY,
    resuming: new Set(),
    started: new Map(),
    heard: new Map(),
  };
}

/** Closes a runner: cancels what it runs or queues, then lets go of the store and its watchers. */
async function closeRunner(
  store: TaskStore,
  slots: RunSlots,
  watchers: TaskWatchers,
  unsubscribe: () => void,
): Promise<void> {
  // Cancel while still subscribed, so waiters and watchers see the canceled tasks.
  const ids = slots.drain();
  await Promise.all(ids.map((id) => cancelUnfinished(store, id).catch(() => undefined)));
  unsubscribe();
  watchers.close();
  slots.releaseAll();
  watchers.endAll();
}
