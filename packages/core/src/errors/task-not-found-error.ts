import { AgentPortError } from './agentport-error.ts';

/** No task exists with this id (404). */
export class TaskNotFoundError extends AgentPortError {
  /** The id that was asked for. */
  readonly taskId: string;

  constructor(taskId: string) {
    super({ code: 'task_not_found', message: `Task '${taskId}' not found`, status: 404 });
    this.name = 'TaskNotFoundError';
    this.taskId = taskId;
  }
}
