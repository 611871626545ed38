import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { resolveUserScope } from '@a2a-js/sdk/server';
import { jsonWeight } from '@agentport/core/internal';
import Queue from 'yocto-queue';
import { storeFullError } from './store-full.ts';

/** Options of {@link createA2ATaskStore}. */
export interface A2ATaskStoreOptions {
  /**
   * How many tasks to keep at most (default 10,000); past it the oldest finished go first, and
   * saving a new unfinished task that finds only unfinished ones to drop is refused.
   */
  maxTasks?: number;
  /**
   * How much memory the tasks may hold, roughly, in bytes (default 128 MiB; see core's
   * `jsonWeight`, taken when a task is first saved and when it finishes): past it the oldest
   * finished go first, and saving a new unfinished task that would not fit beside the
   * unfinished ones is refused.
   */
  maxBytes?: number;
  /** How long a finished task is kept, in milliseconds (default one hour). */
  ttlMs?: number;
}

interface Entry {
  task: Task;
  finishedAt: number | undefined;
  /** Its weight as counted in the store's total. */
  bytes: number;
}

/** A task that finished, in the queue of finished tasks; stale once its entry changed. */
interface Finished {
  readonly bucket: Map<string, Entry>;
  readonly id: string;
  readonly finishedAt: number;
}

const DEFAULT_PAGE_SIZE = 50;
const FINISHED: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/**
 * A copy of a task that shares what the SDK never mutates in place (messages, parts) and copies
 * what it does (the task, its status, its history and artifact lists, each artifact).
 */
function copyTask(task: Task): Task {
  return {
    ...task,
    status: task.status === undefined ? undefined : { ...task.status },
    artifacts: (task.artifacts ?? []).map((artifact) => ({ ...artifact })),
    history: [...(task.history ?? [])],
    metadata: task.metadata === undefined ? undefined : { ...task.metadata },
  };
}

function encodePageToken(timestamp: string, id: string): string {
  return Buffer.from(`${timestamp}|${id}`).toString('base64');
}

function decodePageToken(pageToken: string): { timestamp: string; id: string } {
  const [timestamp = '', ...idParts] = Buffer.from(pageToken, 'base64')
    .toString('utf-8')
    .split('|');
  if (idParts.length === 0) throw new RequestMalformedError('Invalid page token format.');
  return { timestamp, id: idParts.join('|') };
}

function byNewestStatus(a: Task, b: Task): number {
  const timeA = a.status?.timestamp ?? '';
  const timeB = b.status?.timestamp ?? '';
  if (timeA !== timeB) return timeB.localeCompare(timeA);
  return b.id.localeCompare(a.id);
}

class A2AMemoryTaskStore implements TaskStore {
  readonly #buckets = new Map<string, Map<string, Entry>>();
  /**
   * Finished tasks in the order they finished (so oldest first): eviction takes from the front
   * instead of scanning and sorting every task on each save at the cap. A linked queue, not a
   * Map: a Map used as a queue is iterated from its start over the holes its deletions leave
   * there, thousands per eviction at the cap (~13 µs a save).
   */
  readonly #finished = new Queue<Finished>();
  readonly #maxTasks: number;
  readonly #maxBytes: number;
  readonly #ttlMs: number;
  #size = 0;
  /** The bytes of every entry, and of the finished ones; how many are finished. */
  #bytes = 0;
  #finishedBytes = 0;
  #finishedCount = 0;

  constructor(options: A2ATaskStoreOptions) {
    this.#maxTasks = options.maxTasks ?? 10_000;
    this.#maxBytes = options.maxBytes ?? 128 * 1024 * 1024;
    this.#ttlMs = options.ttlMs ?? 60 * 60 * 1000;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const key = this.#scope(context);
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = new Map();
      this.#buckets.set(key, bucket);
    }
    const previous = bucket.get(task.id);
    const state = task.status?.state;
    const finished = state !== undefined && FINISHED.has(state);
    const finishing = finished && previous?.finishedAt === undefined;
    const copy = copyTask(task);
    // Weighed when first saved and when it finishes (not on every save of a running task).
    const bytes = previous === undefined || finishing ? jsonWeight(copy) : previous.bytes;
    if (previous === undefined && !finished) this.#checkRoom(bytes);
    const finishedAt = finished ? (previous?.finishedAt ?? Date.now()) : undefined;
    bucket.set(task.id, { task: copy, finishedAt, bytes });
    this.#bytes += bytes - (previous?.bytes ?? 0);
    if (previous?.finishedAt !== undefined) {
      this.#finishedBytes -= previous.bytes;
      this.#finishedCount -= 1;
    }
    if (finishedAt !== undefined) {
      this.#finishedBytes += bytes;
      this.#finishedCount += 1;
      if (previous?.finishedAt === undefined) {
        this.#finished.enqueue({ bucket, id: task.id, finishedAt });
      }
    }
    if (previous === undefined) this.#size += 1;
    if (previous === undefined || finishing) this.#evict();
  }

  /** Refuses a new unfinished task when the unfinished ones leave it no room, by count or bytes. */
  #checkRoom(bytes: number): void {
    const unfinished = this.#size - this.#finishedCount;
    if (
      unfinished + 1 > this.#maxTasks ||
      this.#bytes - this.#finishedBytes + bytes > this.#maxBytes
    ) {
      throw storeFullError();
    }
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const bucket = this.#buckets.get(this.#scope(context));
    const entry = bucket?.get(taskId);
    if (entry === undefined || bucket === undefined) return undefined;
    if (this.#expired(entry, Date.now())) {
      this.#drop(bucket, taskId, entry);
      return undefined;
    }
    return copyTask(entry.task);
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
    const now = Date.now();
    const after = params.statusTimestampAfter
      ? new Date(params.statusTimestampAfter).getTime()
      : undefined;
    let tasks: Task[] = [];
    for (const entry of this.#buckets.get(this.#scope(context))?.values() ?? []) {
      const { task } = entry;
      if (this.#expired(entry, now)) continue;
      if (params.contextId && task.contextId !== params.contextId) continue;
      if (
        params.status !== undefined &&
        params.status !== TaskState.TASK_STATE_UNSPECIFIED &&
        task.status?.state !== params.status
      ) {
        continue;
      }
      if (after !== undefined) {
        const timestamp = task.status?.timestamp;
        if (!timestamp || !(new Date(timestamp).getTime() > after)) continue;
      }
      tasks.push(task);
    }
    tasks.sort(byNewestStatus);
    const totalSize = tasks.length;
    if (params.pageToken) {
      // The page goes on after the cursor's place in the order, whether its task is still there
      // or not (evicted, or moved to the front by a new status): the SDK's store ends the listing
      // there, which under bounded retention hid every older task.
      const cursor = decodePageToken(params.pageToken);
      const place = { id: cursor.id, status: { timestamp: cursor.timestamp } } as Task;
      const index = tasks.findIndex((task) => byNewestStatus(place, task) < 0);
      tasks = index === -1 ? [] : tasks.slice(index);
    }
    const page = tasks.slice(0, pageSize);
    const last = page.at(-1);
    return {
      tasks: page.map((task) => {
        const copy = copyTask(task);
        if (!params.includeArtifacts) copy.artifacts = [];
        return copy;
      }),
      nextPageToken:
        last !== undefined && tasks.length > page.length
          ? encodePageToken(last.status?.timestamp ?? '', last.id)
          : '',
      pageSize,
      totalSize,
    };
  }

  #scope(context: ServerCallContext): string {
    return `${context.tenant ?? ''}\u0000${resolveUserScope(context)}`;
  }

  #expired(entry: Entry, now: number): boolean {
    return entry.finishedAt !== undefined && now - entry.finishedAt > this.#ttlMs;
  }

  /**
   * Drops the expired finished tasks, then the oldest finished ones until within the cap (on each
   * new task; it looks at the front of the queue only). Queue entries whose task was dropped or
   * changed since (deleted when found expired, saved again as running) are skipped.
   */
  #evict(): void {
    const now = Date.now();
    for (let next = this.#finished.peek(); next !== undefined; next = this.#finished.peek()) {
      const { bucket, id, finishedAt } = next;
      if (
        this.#size <= this.#maxTasks &&
        this.#bytes <= this.#maxBytes &&
        now - finishedAt <= this.#ttlMs
      ) {
        break;
      }
      this.#finished.dequeue();
      const entry = bucket.get(id);
      if (entry?.finishedAt === finishedAt) this.#drop(bucket, id, entry);
    }
  }

  /** Forgets a finished task. */
  #drop(bucket: Map<string, Entry>, id: string, entry: Entry): void {
    bucket.delete(id);
    this.#size -= 1;
    this.#bytes -= entry.bytes;
    this.#finishedBytes -= entry.bytes;
    this.#finishedCount -= 1;
  }
}

/**
 * Creates an SDK-shaped in-memory task store, for the SDK's own handlers used without a core
 * runner: the SDK's `InMemoryTaskStore` semantics (tenant and user scoping, newest-first listing
 * with the same cursors) without deep copies on every read and write, and with bounded retention.
 *
 * @example
 * const handler = new DefaultRequestHandler(
 *   card,
 *   createA2ATaskStore({ maxTasks: 1000 }),
 *   createAgentExecutor({ agent }),
 * );
 */
export function createA2ATaskStore(options: A2ATaskStoreOptions = {}): TaskStore {
  return new A2AMemoryTaskStore(options);
}
