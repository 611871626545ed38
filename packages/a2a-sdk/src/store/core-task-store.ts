import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { TaskStore } from '@a2a-js/sdk/server';
import {
  type Task as CoreTask,
  InvalidInputError,
  isInterruptedStatus,
  TaskConflictError,
  type TaskListOptions,
  TaskNotFoundError,
  type TaskRunner,
  TaskStoreFullError,
  UNFINISHED_STATUSES,
} from '@agentport/core';
import { OUTPUT_ARTIFACT_ID, textOfParts } from '../executor/parts.ts';
import { TERMINAL_STATES } from '../handler/task-progress.ts';
import { storeFullError } from './store-full.ts';
import { a2aTaskOf, coreMessageOf, coreStatusOf } from './task-view.ts';

const DEFAULT_PAGE_SIZE = 50;

const isTerminalState = (state: TaskState | undefined): boolean =>
  state !== undefined && TERMINAL_STATES.has(state);

/**
 * Stores a task the runner did not run (a message answer that failed, say): created with its
 * history, then moved to the status it is in, with its status message, text view and error.
 */
async function storeEnded(runner: TaskRunner, task: Task): Promise<void> {
  const messages = (task.history ?? []).map(coreMessageOf);
  const first = task.history?.find((message) => message.taskId === task.id) ?? task.history?.[0];
  const input = first === undefined ? '' : textOfParts(first.parts);
  try {
    await runner.store.create({
      id: task.id,
      contextId: task.contextId || undefined,
      agentName: runner.agent.name,
      input: input === '' ? ' ' : input,
      metadata: { ...task.metadata },
      messages,
    });
  } catch (error) {
    if (error instanceof TaskStoreFullError) throw storeFullError();
    throw error;
  }
  const status = coreStatusOf(task.status?.state);
  if (status === undefined || status === 'submitted') return;
  const output = task.artifacts
    ?.filter(({ artifactId }) => artifactId === OUTPUT_ARTIFACT_ID)
    .map((artifact) => textOfParts(artifact.parts))
    .join('');
  const statusMessage = task.status?.message;
  const error =
    status === 'failed'
      ? { code: 'agent_failure', message: textOfParts(statusMessage?.parts ?? []) || 'failed' }
      : undefined;
  await runner.store.update(
    task.id,
    {
      status,
      ...(statusMessage === undefined ? {} : { statusMessage: coreMessageOf(statusMessage) }),
      ...(output ? { output } : {}),
      ...(error === undefined ? {} : { error }),
    },
    { expectedStatus: 'submitted' },
  );
}

/** How many tasks' stored message ids the store remembers (the oldest noted go first). */
const MAX_REMEMBERED = 1_000;

/**
 * The ids of the messages the core store was seen to hold, by task: a save of the SDK's copy
 * whose user messages are all among them has nothing to add, and reads nothing.
 */
class StoredMessages {
  readonly #ids = new Map<string, Set<string>>();

  note(task: CoreTask): void {
    this.#ids.delete(task.id);
    this.#ids.set(task.id, new Set(task.messages.map(({ messageId }) => messageId)));
    if (this.#ids.size > MAX_REMEMBERED) {
      for (const oldest of this.#ids.keys()) {
        this.#ids.delete(oldest);
        break;
      }
    }
  }

  holdsAll(task: Task): boolean {
    const ids = this.#ids.get(task.id);
    if (ids === undefined) return false;
    for (const message of task.history ?? []) {
      if (message.role === Role.ROLE_USER && !ids.has(message.messageId)) return false;
    }
    return true;
  }

  forget(id: string): void {
    this.#ids.delete(id);
  }
}

/** What the store bridges over each runner know of its stored messages (a server has one). */
const storedByRunner = new WeakMap<TaskRunner, StoredMessages>();

function storedMessagesOf(runner: TaskRunner): StoredMessages {
  let stored = storedByRunner.get(runner);
  if (stored === undefined) {
    stored = new StoredMessages();
    storedByRunner.set(runner, stored);
  }
  return stored;
}

/**
 * Tells the store bridges over `runner` of a task it created with the caller's message: the
 * SDK's first save of it, which holds that message, has nothing to add and reads nothing.
 */
export function noteCreatedTask(runner: TaskRunner, task: CoreTask): void {
  storedMessagesOf(runner).note(task);
}

/**
 * Adds to a stored task the caller's messages the SDK's copy has and it has not (a follow-up
 * message the SDK's handler put in the history): everything else the runner wrote already. A
 * task that ended meanwhile keeps its history as it ended; a paused one gets its answer from the
 * executor, through the runner's resume (which adds it).
 */
async function addFollowUps(runner: TaskRunner, stored: CoreTask, task: Task): Promise<void> {
  const history = task.history ?? [];
  if (history.length <= stored.messages.length || isInterruptedStatus(stored.status)) return;
  const known = new Set(stored.messages.map(({ messageId }) => messageId));
  const messages = history
    .filter((message) => message.role === Role.ROLE_USER && !known.has(message.messageId))
    .map(coreMessageOf);
  if (messages.length === 0) return;
  await runner.store
    .update(task.id, { messages }, { expectedStatus: UNFINISHED_STATUSES })
    .catch((error: unknown) => {
      if (!(error instanceof TaskConflictError)) throw error;
    });
}

/** The core listing of a ListTasks request (its pageToken is core's cursor). */
function listOptionsOf(
  params: ListTasksRequest,
  limit: number,
): Omit<TaskListOptions, 'agentName'> {
  const status =
    params.status === undefined || params.status === TaskState.TASK_STATE_UNSPECIFIED
      ? undefined
      : coreStatusOf(params.status);
  return {
    limit,
    ...(params.pageToken ? { cursor: params.pageToken } : {}),
    ...(status === undefined ? {} : { status }),
    ...(params.contextId ? { contextId: params.contextId } : {}),
  };
}

/** Whether a task's status changed after `after` (ms), when the request filters by it. */
function changedAfter(task: CoreTask, after: number | undefined): boolean {
  return after === undefined || Date.parse(task.updatedAt) > after;
}

/** How many tasks the listing's filters select in all, counted a page of 100 at a time. */
async function countListed(
  runner: TaskRunner,
  params: ListTasksRequest,
  after: number | undefined,
): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await runner.list({
      ...listOptionsOf({ ...params, pageToken: '' }, 100),
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const task of page.tasks) if (changedAfter(task, after)) count += 1;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return count;
}

async function listTasks(runner: TaskRunner, params: ListTasksRequest): Promise<ListTasksResponse> {
  const pageSize = params.pageSize || DEFAULT_PAGE_SIZE;
  const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
  let page: Awaited<ReturnType<TaskRunner['list']>>;
  try {
    page = await runner.list(listOptionsOf(params, pageSize));
  } catch (error) {
    if (error instanceof InvalidInputError) {
      throw new RequestMalformedError('Invalid page token format.');
    }
    throw error;
  }
  const tasks = page.tasks
    .filter((task) => changedAfter(task, after))
    .map((task) => {
      const view = a2aTaskOf(task);
      if (!params.includeArtifacts) view.artifacts = [];
      return view;
    });
  return {
    tasks,
    nextPageToken: page.nextCursor ?? '',
    pageSize,
    totalSize: await countListed(runner, params, after),
  };
}

/**
 * The SDK's `TaskStore` over a core task runner's store: the SDK's request handler reads (load,
 * list) the agent's tasks from core, whichever surface created them, in the SDK's shape. Saving a
 * task the runner runs writes nothing (the runner wrote every change to the core store as it
 * happened, and the SDK's copy is a view of those); a task the runner does not know (a message
 * answer that ended failed) is stored as it is. Tasks are the agent's, not scoped by tenant or
 * caller, as on the hand-rolled surface.
 */
export function createCoreTaskStore(runner: TaskRunner): TaskStore {
  const stored = storedMessagesOf(runner);
  return {
    async load(taskId) {
      try {
        return a2aTaskOf(await runner.get(taskId));
      } catch (error) {
        if (error instanceof TaskNotFoundError) return undefined;
        throw error;
      }
    },
    async save(task) {
      // The SDK saves its copy after each change: most saves add nothing the store lacks.
      if (!stored.holdsAll(task)) {
        const current = await runner.store.get(task.id);
        if (current === undefined) await storeEnded(runner, task);
        else if (current.agentName === runner.agent.name) {
          stored.note(current);
          await addFollowUps(runner, current, task);
        }
      }
      if (isTerminalState(task.status?.state)) stored.forget(task.id);
    },
    list: (params) => listTasks(runner, params),
  };
}
