import { AgentPortError } from './agentport-error.ts';

/**
 * A task store has no room for another task: it holds as many unfinished tasks as it may, in
 * count or in bytes, and only finished ones can make room (503).
 */
export class TaskStoreFullError extends AgentPortError {
  constructor() {
    super({
      code: 'task_store_full',
      message: 'Too many unfinished tasks: try again later',
      status: 503,
    });
    this.name = 'TaskStoreFullError';
  }
}
