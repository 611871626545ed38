import type { Task } from '@a2a-js/sdk';
import {
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
} from '@a2a-js/sdk/errors';
import {
  TaskNotCancelableError as CoreNotCancelable,
  TaskNotFoundError as CoreNotFound,
  type TaskRunner,
} from '@agentport/core';
import { a2aTaskOf } from '../store/task-view.ts';

/**
 * CancelTask through a core runner, in the SDK's errors: TaskNotFound for a task the runner does
 * not have (another agent's included), TaskNotCancelable for a finished one; a canceled task is
 * answered as it is.
 */
export async function cancelInRunner(runner: TaskRunner, taskId: string): Promise<Task> {
  // As the SDK's check: an id that is not a string throws here (an internal error, as there).
  if (!taskId || taskId.trim() === '') {
    throw new RequestMalformedError('Task ID is required');
  }
  try {
    return a2aTaskOf(await runner.cancel(taskId));
  } catch (error) {
    if (error instanceof CoreNotFound) throw new TaskNotFoundError(`Task not found: ${taskId}`);
    if (error instanceof CoreNotCancelable) {
      throw new TaskNotCancelableError(`Task not cancelable: ${taskId}`);
    }
    throw error;
  }
}
