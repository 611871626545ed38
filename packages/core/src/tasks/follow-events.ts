import { TaskNotFoundError } from '../errors/task-not-found-error.ts';
import type { Task } from './task.ts';
import { endsTask, type TaskEvent, type TaskLogEntry } from './task-event.ts';
import { isInterruptedStatus, isTerminalStatus } from './task-lifecycle.ts';
import type { TaskStore } from './task-store.ts';

/** Options of {@link followTaskEvents} and `TaskRunner.follow`. */
export interface TaskFollowOptions {
  /** Follow the events whose `seq` is greater (default 0: from the first). */
  after?: number;
  /** Stops following: the iteration ends (without an error). */
  signal?: AbortSignal;
  /**
   * The task as the caller has it, at or before `after`: the follow starts from it instead of
   * reading the task first (a task it just created, say). One that is finished or paused is read
   * anyway, so that only the store says the follow has nothing more to wait for. When `after` is
   * its `seq` and the runner has heard of no change since (a task it has just created to run),
   * the follow reads nothing at all: whatever comes next, it hears.
   */
  task?: Task;
}

/** Where {@link followEvents} reads and hears one task's events. */
export interface EventSource {
  /** The task as it is; rejects as a reader should be told (TaskNotFoundError, say). */
  get(): Promise<Task>;
  /** Its events after `after` (see `TaskStore.events`). */
  read(after: number): Promise<readonly TaskLogEntry[]>;
  /**
   * The seq of the last change heard of the task, when every change since its creation was
   * heard (undefined otherwise): nothing after it was heard yet, so nothing is there to read.
   */
  heard?(): number | undefined;
  /** Hears its changes (see `TaskListener`) until the returned function is called; `onEnd` once no more will be heard. */
  listen(
    onChange: (task: Task, events: readonly TaskEvent[]) => void,
    onEnd: () => void,
  ): () => void;
}

/**
 * How many heard events a follower keeps for a consumer slower than the task: past it, it drops
 * them and reads them from the store once the consumer catches up (which tells it, with
 * EventsExpiredError, if retention dropped them meanwhile): memory per follower stays bounded.
 */
const MAX_QUEUED = 1024;

/** The events a follower heard of and has not yielded yet, and how far the task has gone. */
class Heard {
  #queue: TaskLogEntry[] = [];
  #head = 0;
  /** The highest sequence number heard of. */
  tip = 0;
  ended = false;
  #wake: (() => void) | undefined;

  /** A change heard: its events, numbered back from the task's `seq`. */
  readonly change = (task: Task, events: readonly TaskEvent[]): void => {
    const first = task.seq - events.length + 1;
    for (let index = 0; index < events.length; index += 1) {
      this.#queue.push({ seq: first + index, event: events[index] as TaskEvent });
    }
    if (task.seq > this.tip) this.tip = task.seq;
    if (this.#queue.length - this.#head > MAX_QUEUED) this.#clear();
    this.wake();
  };

  /** No more will be heard. */
  readonly end = (): void => {
    this.ended = true;
    this.wake();
  };

  readonly wake = (): void => this.#wake?.();

  /**
   * The next heard event after `last`, skipping those up to it; undefined when there is none or
   * the next one leaves a gap (which `gap` then says).
   */
  next(last: number): TaskLogEntry | undefined {
    while (this.#head < this.#queue.length) {
      const entry = this.#queue[this.#head] as TaskLogEntry;
      if (entry.seq > last + 1) return undefined;
      this.#head += 1;
      if (entry.seq > last) return entry;
    }
    this.#clear();
    return undefined;
  }

  /** Whether what is queued starts beyond `last + 1`. */
  gap(): boolean {
    return this.#head < this.#queue.length;
  }

  /** Resolves at the next change, end or abort. */
  wait(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#wake = resolve;
    }).then(() => {
      this.#wake = undefined;
    });
  }

  #clear(): void {
    this.#queue = [];
    this.#head = 0;
  }
}

/** Whether an event pauses its task for the caller (a status update to input- or auth-required). */
function pausesTask(event: TaskEvent): boolean {
  return event.type === 'status-update' && isInterruptedStatus(event.status);
}

/**
 * Yields a task's events after `after`, then its new ones as they come, until it ends (its
 * terminal status update is the last event) or, caught up, finds it paused for its caller, the signal aborts or the source says no more will
 * be heard. It listens before it reads, so nothing between the read and the first change heard is
 * missed, and skips what it has yielded already; a change heard with fewer events than it
 * appended (or a queue dropped for a slow consumer) is read from the store: no gap, no duplicate.
 * Rejects as the source's `get` and `read` do (EventsAheadError, EventsExpiredError, ...).
 */
export async function* followEvents(
  source: EventSource,
  options: TaskFollowOptions = {},
): AsyncGenerator<TaskLogEntry, void, undefined> {
  const { signal } = options;
  const heard = new Heard();
  const stop = source.listen(heard.change, heard.end);
  signal?.addEventListener('abort', heard.wake, { once: true });
  try {
    const known = options.task;
    const fresh =
      known !== undefined && !isTerminalStatus(known.status) && !isInterruptedStatus(known.status);
    const task = fresh ? known : await source.get();
    let last = options.after ?? 0;
    // Listening already, with nothing heard past the caller's task: all that comes is heard.
    const caughtUp = fresh && last === task.seq && source.heard?.() === last;
    // Whether the last event yielded paused the task: once caught up, the follow ends there.
    let paused = false;
    for (const entry of caughtUp ? [] : await source.read(last)) {
      last = entry.seq;
      yield entry;
      if (endsTask(entry.event) || signal?.aborted) return;
      paused = pausesTask(entry.event);
    }
    // Terminal already: what it read was all there is.
    if (isTerminalStatus(task.status)) return;
    if (last >= task.seq && (paused || isInterruptedStatus(task.status))) return;
    for (;;) {
      for (let entry = heard.next(last); entry !== undefined; entry = heard.next(last)) {
        last = entry.seq;
        yield entry;
        if (endsTask(entry.event) || signal?.aborted) return;
        paused = pausesTask(entry.event);
      }
      if (heard.gap() || heard.tip > last) {
        const before = last;
        for (const entry of await source.read(last)) {
          if (entry.seq <= last) continue;
          last = entry.seq;
          yield entry;
          if (endsTask(entry.event) || signal?.aborted) return;
          paused = pausesTask(entry.event);
        }
        // What was heard may follow on now; a read that found nothing new waits for a change.
        if (last > before) continue;
      }
      if (heard.ended || paused || signal?.aborted) return;
      await heard.wait();
    }
  } finally {
    stop();
    signal?.removeEventListener('abort', heard.wake);
  }
}

/**
 * Follows one task's log in a store: its events after `options.after`, then the new ones as they
 * come, until it ends or `options.signal` aborts. Built on `subscribe` and `events`, so any
 * `TaskStore` can be followed; each follower listens to every change of the store (a runner's
 * `follow` listens to its own task only). Rejects with TaskNotFoundError, EventsAheadError or
 * EventsExpiredError as `events` does.
 *
 * @example
 * for await (const { seq, event } of followTaskEvents(store, id, { after: lastSeen })) {
 *   console.log(seq, event.type);
 * }
 */
export function followTaskEvents(
  store: TaskStore,
  id: string,
  options: TaskFollowOptions = {},
): AsyncIterable<TaskLogEntry> {
  return followEvents(
    {
      async get() {
        const task = await store.get(id);
        if (task === undefined) throw new TaskNotFoundError(id);
        return task;
      },
      read: (after) => store.events(id, { after }),
      listen: (onChange) =>
        store.subscribe((task, events) => {
          if (task.id === id) onChange(task, events);
        }),
    },
    options,
  );
}
