import { isTerminalStatus, type Task } from '@agentport/core';

/** A task as this store last wrote it, with what a step needs of its row besides. */
export interface KnownRow {
  readonly task: Task;
  readonly earliestAfter: number;
  readonly retainMs: number;
}

/** How many unfinished tasks' rows a store remembers (the oldest written go first). */
const LIMIT = 1_000;

/**
 * The rows of the unfinished tasks this store wrote last, so that its next step of one (the
 * runner's start, appends and end) writes at once, guarded by the seq it wrote, instead of
 * reading the row first; a step another process made since moves the seq, and the write then
 * changes nothing and the step reads the row as usual.
 */
export class KnownRows {
  readonly #rows = new Map<string, KnownRow>();

  get(id: string): KnownRow | undefined {
    return this.#rows.get(id);
  }

  /** Remembers a task as written; a finished one is forgotten (nothing steps it again). */
  set(row: KnownRow): void {
    const { id } = row.task;
    this.#rows.delete(id);
    if (isTerminalStatus(row.task.status)) return;
    this.#rows.set(id, row);
    if (this.#rows.size > LIMIT) {
      for (const oldest of this.#rows.keys()) {
        this.#rows.delete(oldest);
        break;
      }
    }
  }

  forget(id: string): void {
    this.#rows.delete(id);
  }
}
