import { TaskNotFoundError } from '@agentport/core';

/** The remote has no task with this id (404); a core `TaskNotFoundError` naming the operation. */
export class RemoteTaskNotFoundError extends TaskNotFoundError {
  /** The client operation that failed, such as `getTask`. */
  readonly operation: string;

  constructor(operation: string, taskId: string) {
    super(taskId);
    this.message = `${operation} failed: the remote has no task '${taskId}'`;
    this.name = 'RemoteTaskNotFoundError';
    this.operation = operation;
  }
}
