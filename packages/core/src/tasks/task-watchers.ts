import type { Task } from './task.ts';
import type { TaskEvent } from './task-event.ts';
import type { Watcher } from './watch-task.ts';

/**
 * The watchers of a task runner's tasks, by task id: most tasks have one (their creator's wait),
 * kept without a Set.
 */
export class TaskWatchers {
  readonly #watchers = new Map<string, Watcher | Set<Watcher>>();
  #closed = false;

  /** Whether the runner closed: no change will be heard of any more. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Adds a watcher of one task; once closed it is told so at once (and not added). */
  readonly add = (id: string, watcher: Watcher): void => {
    if (this.#closed) {
      watcher(undefined);
      return;
    }
    const present = this.#watchers.get(id);
    if (present === undefined) this.#watchers.set(id, watcher);
    else if (typeof present === 'function') this.#watchers.set(id, new Set([present, watcher]));
    else present.add(watcher);
  };

  /** Removes a watcher of one task. */
  readonly remove = (id: string, watcher: Watcher): void => {
    const present = this.#watchers.get(id);
    if (present === watcher) this.#watchers.delete(id);
    else if (typeof present === 'object' && present.delete(watcher) && present.size === 0) {
      this.#watchers.delete(id);
    }
  };

  /** Tells a task's watchers of its change and the events it appended. */
  notify(task: Task, events: readonly TaskEvent[]): void {
    const watching = this.#watchers.get(task.id);
    if (typeof watching === 'function') watching(task, events);
    else if (watching !== undefined) for (const watcher of watching) watcher(task, events);
  }

  /** Refuses new watchers from now on (see {@link add}). */
  close(): void {
    this.#closed = true;
  }

  /** Tells every watcher still there that no change will come (each reads its task as it is). */
  endAll(): void {
    for (const watching of [...this.#watchers.values()]) {
      if (typeof watching === 'function') watching(undefined);
      else for (const watcher of [...watching]) watcher(undefined);
    }
  }
}
