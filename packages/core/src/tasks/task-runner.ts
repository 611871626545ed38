import type { Agent } from '../agent.ts';
import {
  checkedOutput,
  endedWithoutResult,
  type TerminalEvent,
  terminalEventOf,
} from '../agent-output.ts';
import { AgentPortError } from '../errors/agentport-error.ts';
import { CancellationError } from '../errors/cancellation-error.ts';
import { InvalidInputError } from '../errors/invalid-input-error.ts';
import { TaskNotCancelableError } from '../errors/task-not-cancelable-error.ts';
import { TaskNotFoundError } from '../errors/task-not-found-error.ts';
import { toAgentFailure } from '../errors/to-agent-failure.ts';
import { toAgentPortError } from '../errors/to-agentport-error.ts';
import { LazyAbortListener } from '../internal/lazy-abort-listener.ts';
import { LazyTimeout } from '../internal/lazy-timeout.ts';
import { randomUuid } from '../internal/random-uuid.ts';
import { createMemoryTaskStore } from './memory-task-store.ts';
import { ProgressWriter } from './progress-writer.ts';
import { hasOwnKeys, isTerminalStatus, type Task } from './task.ts';
import type {
  TaskListOptions,
  TaskPage,
  TaskPatch,
  TaskStore,
  TaskUpdateOptions,
} from './task-store.ts';
import { type Watcher, watchTask } from './watch-task.ts';

/** Options of {@link createTaskRunner}. */
export interface TaskRunnerOptions {
  /** The agent every task runs. */
  agent: Agent;
  /** Where tasks live; defaults to a new in-memory store. Several runners may share one. */
  store?: TaskStore;
  /** How many tasks run at once; the rest wait in `submitted` (default 16). */
  maxConcurrency?: number;
}

/** Options of {@link TaskRunner.wait} and {@link TaskRunner.watch}. */
export interface TaskWaitOptions {
  signal?: AbortSignal;
  /** Give up after this long and resolve with the task as it is (wait only). */
  timeoutMs?: number;
}

/** Runs an agent's tasks through their lifecycle, with bounded concurrency and cancellation. */
export interface TaskRunner {
  readonly agent: Agent;
  readonly store: TaskStore;
  /** Creates a task in `submitted` and schedules it; resolves with the created task. */
  submit(input: string, options?: { metadata?: Record<string, unknown> }): Promise<Task>;
  /**
   * Submits a task and waits for it, as `submit` then `wait` would, but watching it from its
   * creation (no change can slip by, nothing is read back): resolves with the task once terminal,
   * or as it is when `timeoutMs` runs out or the runner closes. When `signal` aborts first, the
   * task is canceled (nobody else knows its id) and the call resolves with it.
   */
  submitAndWait(
    input: string,
    options?: TaskWaitOptions & { metadata?: Record<string, unknown> },
  ): Promise<Task>;
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
  /**
   * Cancels every task this runner is running or has queued, stops listening to the store, and
   * ends every wait and watch (a wait resolves with the task as it is): once closed, nothing
   * would tell them of a change, as for a task another process runs in a shared store.
   */
  close(): Promise<void>;
}

/**
 * The change that ends a run: completed with its output, or failed with the output produced
 * before the failure (kept, as the progress writes would have).
 */
function endPatch(end: TerminalEvent, output: string): TaskPatch {
  if (end.type === 'done') return { status: 'completed', output: end.output };
  const error = { code: end.code, message: end.message };
  return output === '' ? { status: 'failed', error } : { status: 'failed', error, output };
}

// The writes every run makes, made once (the store does not keep or change them).
const START: TaskPatch = Object.freeze({ status: 'working' });
const FROM_SUBMITTED: TaskUpdateOptions = Object.freeze({ expectedStatus: 'submitted' });
const FROM_WORKING: TaskUpdateOptions = Object.freeze({ expectedStatus: 'working' });

function isConflict(error: unknown): boolean {
  return AgentPortError.isInstance(error) && error.code === 'task_conflict';
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
  const { agent } = options;
  const store = options.store ?? createMemoryTaskStore();
  const maxConcurrency = options.maxConcurrency ?? 16;
  const queue: string[] = [];
  const running = new Map<string, AbortController>();
  /** A task's watchers: most tasks have one (their creator's wait), kept without a Set. */
  const watchers = new Map<string, Watcher | Set<Watcher>>();
  let active = 0;
  let closed = false;

  const unsubscribe = store.subscribe((task) => {
    if (task.agentName !== agent.name) return;
    if (task.status === 'canceled') {
      // Whichever process canceled it, the agent running it here stops now and frees its slot.
      const controller = running.get(task.id);
      if (controller !== undefined) release(task.id, controller);
      const queued = queue.indexOf(task.id);
      if (queued !== -1) queue.splice(queued, 1);
    }
    const watching = watchers.get(task.id);
    if (typeof watching === 'function') watching(task);
    else if (watching !== undefined) for (const watcher of watching) watcher(task);
  });

  /** Frees a run's slot, unless a cancel freed it already; whether this call freed it. */
  function free(id: string, controller: AbortController): boolean {
    if (running.get(id) !== controller) return false;
    running.delete(id);
    active -= 1;
    return true;
  }

  function release(id: string, controller: AbortController): void {
    if (!free(id, controller)) return;
    controller.abort(new CancellationError('The task was canceled'));
    pump();
  }

  function pump(): void {
    while (active < maxConcurrency && queue.length > 0) {
      const id = queue.shift() as string;
      active += 1;
      const controller = new AbortController();
      running.set(id, controller);
      // execute never rejects.
      void execute(id, controller);
    }
  }

  async function execute(id: string, controller: AbortController): Promise<void> {
    const { signal } = controller;
    const progress = new ProgressWriter(store, id);
    try {
      const task = await store.update(id, START, FROM_SUBMITTED);
      let end: TerminalEvent | undefined;
      try {
        // The agent gets its own copy of the metadata; without any, the run makes one if asked.
        const events = agent.stream(
          task.input,
          hasOwnKeys(task.metadata) ? { signal, metadata: { ...task.metadata } } : { signal },
        );
        end = await terminalEventOf(
          events,
          (event) => {
            if (event.type === 'text-delta') progress.append(event.delta);
          },
          signal,
        );
      } catch (error) {
        // What the agent throws (its stream on call, or a step) is its failure, as on every
        // other surface; a progress write that failed is the store's.
        throw progress.failedWith(error) ? error : toAgentFailure(error, agent.name);
      }
      // Canceled: the task says so already.
      if (signal.aborted) return;
      if (end === undefined) throw endedWithoutResult(agent.name);
      if (end.type === 'done') checkedOutput(end.output, agent.name);
      const writing = progress.settle();
      if (writing !== undefined) await writing;
      const patch = endPatch(end, progress.output);
      await store.update(id, patch, FROM_WORKING);
    } catch (error) {
      if (signal.aborted || isConflict(error)) return;
      const { code, message } = toAgentPortError(error);
      await progress.settle()?.catch(() => undefined);
      const patch = endPatch({ type: 'error', code, message }, progress.output);
      await store
        .update(id, patch, { expectedStatus: ['submitted', 'working'] })
        .catch(() => undefined);
    } finally {
      if (free(id, controller)) pump();
    }
  }

  async function get(id: string): Promise<Task> {
    const task = await store.get(id);
    if (task === undefined || task.agentName !== agent.name) throw new TaskNotFoundError(id);
    return task;
  }

  /** Adds a watcher of one task; on a closed runner it is told so at once (and not added). */
  function addWatcher(id: string, watcher: Watcher): void {
    if (closed) {
      watcher(undefined);
      return;
    }
    const present = watchers.get(id);
    if (present === undefined) watchers.set(id, watcher);
    else if (typeof present === 'function') watchers.set(id, new Set([present, watcher]));
    else present.add(watcher);
  }

  function removeWatcher(id: string, watcher: Watcher): void {
    const present = watchers.get(id);
    if (present === watcher) watchers.delete(id);
    else if (typeof present === 'object' && present.delete(watcher) && present.size === 0) {
      watchers.delete(id);
    }
  }

  /**
   * Cancels a submitted or working task; idempotent on a canceled one; TaskNotCancelableError on
   * a completed or failed one.
   */
  async function cancel(id: string): Promise<Task> {
    const task = await get(id);
    if (task.status === 'canceled') return task;
    if (isTerminalStatus(task.status)) throw new TaskNotCancelableError(id, task.status);
    try {
      return await store.update(
        id,
        { status: 'canceled' },
        { expectedStatus: ['submitted', 'working'] },
      );
    } catch (error) {
      if (!isConflict(error)) throw error;
      const now = await get(id);
      if (now.status === 'canceled') return now;
      throw new TaskNotCancelableError(id, now.status);
    }
  }

  // Not async: the store's own promise is handed on (an async function returning a promise
  // adds a promise and three microtask turns to every create).
  function create(input: string, metadata: Record<string, unknown> = {}): Promise<Task> {
    if (typeof input !== 'string' || input.length === 0) {
      return Promise.reject(
        new InvalidInputError('input must be a non-empty string', { field: 'input' }),
      );
    }
    return store.create({ id: randomUuid(), agentName: agent.name, input, metadata });
  }

  function start(id: string): void {
    queue.push(id);
    pump();
  }

  /**
   * Watches a task from now on: `task` resolves once it is terminal, or as it is when `timeoutMs`
   * runs out or the runner closes, and rejects with the signal's reason when `signal` aborts.
   * `stop` must be called once it is no longer awaited.
   */
  function untilTerminal(
    id: string,
    { signal, timeoutMs }: TaskWaitOptions,
  ): { task: Promise<Task>; stop(): void } {
    let resolve!: (task: Task) => void;
    let reject!: (reason: unknown) => void;
    const promise = new Promise<Task>((resolveTask, rejectTask) => {
      resolve = resolveTask;
      reject = rejectTask;
    });
    const readNow = () => void get(id).then(resolve, reject);
    const watcher: Watcher = (changed) => {
      if (changed === undefined) readNow();
      else if (isTerminalStatus(changed.status)) resolve(changed);
    };
    addWatcher(id, watcher);
    const timer = timeoutMs === undefined ? undefined : new LazyTimeout(timeoutMs, readNow);
    const onAbort = () => reject(signal?.reason);
    let listening: LazyAbortListener | undefined;
    // Aborted already (while its task was being created): rejects at once.
    if (signal?.aborted === true) onAbort();
    else if (signal !== undefined) listening = new LazyAbortListener(signal, onAbort);
    const stop = () => {
      removeWatcher(id, watcher);
      timer?.clear();
      listening?.stop();
    };
    return { task: promise, stop };
  }

  return {
    agent,
    store,

    async submit(input, submitOptions = {}) {
      const task = await create(input, submitOptions.metadata);
      start(task.id);
      return task;
    },

    get,

    list(listOptions = {}) {
      return store.list({ ...listOptions, agentName: agent.name });
    },

    cancel,

    async submitAndWait(input, options = {}) {
      options.signal?.throwIfAborted();
      const task = await create(input, options.metadata);
      // Watched before it can start: every change is seen, nothing needs reading back.
      const waiting = untilTerminal(task.id, options);
      start(task.id);
      try {
        return await waiting.task;
      } catch (error) {
        if (options.signal?.aborted !== true) throw error;
        // Nobody else knows the task's id: giving up on it cancels it.
        return cancel(task.id).catch(() => get(task.id));
      } finally {
        waiting.stop();
      }
    },

    async wait(id, waitOptions = {}) {
      waitOptions.signal?.throwIfAborted();
      if (closed) return get(id);
      const waiting = untilTerminal(id, waitOptions);
      try {
        const current = await get(id);
        if (isTerminalStatus(current.status)) return current;
        return await waiting.task;
      } finally {
        waiting.stop();
      }
    },

    watch(id, watchOptions = {}) {
      return watchTask(id, watchOptions.signal, get, addWatcher, removeWatcher);
    },

    async close() {
      const ids = [...queue, ...running.keys()];
      queue.length = 0;
      // Cancel while still subscribed, so waiters and watchers see the canceled tasks.
      await Promise.all(
        ids.map((id) =>
          store
            .update(id, { status: 'canceled' }, { expectedStatus: ['submitted', 'working'] })
            .catch(() => undefined),
        ),
      );
      unsubscribe();
      closed = true;
      for (const [id, controller] of [...running]) release(id, controller);
      for (const watching of [...watchers.values()]) {
        if (typeof watching === 'function') watching(undefined);
        else for (const watcher of [...watching]) watcher(undefined);
      }
    },
  };
}
