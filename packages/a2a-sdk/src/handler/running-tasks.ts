import { resolveUserScope, type ServerCallContext } from '@a2a-js/sdk/server';
import type { TaskProgress } from './task-progress.ts';

/** A task whose first request a handler's fast path is serving (and saving). */
export interface RunningTask {
  readonly progress: TaskProgress;
  /** Blocking follow-ups waiting for that request to end (the task is then saved, terminal). */
  waiting: Array<() => void> | undefined;
}

/** The running tasks of one handler, by scope (tenant and user) and task id. */
export class RunningTasks {
  readonly #tasks = new Map<string, RunningTask>();

  #key(taskId: string, context: ServerCallContext): string {
    return `${context.tenant ?? ''}\u0000${resolveUserScope(context)}\u0000${taskId}`;
  }

  get(taskId: string, context: ServerCallContext): RunningTask | undefined {
    return this.#tasks.get(this.#key(taskId, context));
  }

  /** Registers a task's first request; the returned function ends it and wakes its waiters. */
  add(taskId: string, context: ServerCallContext, progress: TaskProgress): () => void {
    const key = this.#key(taskId, context);
    const running: RunningTask = { progress, waiting: undefined };
    this.#tasks.set(key, running);
    return () => {
      this.#tasks.delete(key);
      for (const wake of running.waiting ?? []) wake();
    };
  }

  /** Resolves once the task's first request has ended. */
  ended(running: RunningTask): Promise<void> {
    return new Promise((resolve) => {
      running.waiting ??= [];
      running.waiting.push(resolve);
    });
  }
}
