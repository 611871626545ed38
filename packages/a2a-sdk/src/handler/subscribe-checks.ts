import type { SubscribeToTaskRequest, TaskState } from '@a2a-js/sdk';
import { RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { TERMINAL_STATES } from './task-progress.ts';

/** The id of the task a SubscribeToTask names, once the SDK's checks pass (streaming, an id). */
export function subscribedTaskId(streaming: boolean, params: SubscribeToTaskRequest): string {
  if (!streaming) {
    throw new UnsupportedOperationError('Streaming (and thus resubscription) is not supported.');
  }
  const taskId = params.id;
  if (!taskId || taskId.trim() === '') throw new RequestMalformedError('Task ID is required');
  return taskId;
}

/** Refuses a subscription to a finished task, as the SDK does. */
export function checkSubscribable(taskId: string, state: TaskState | undefined): void {
  if (state !== undefined && TERMINAL_STATES.has(state)) {
    throw new UnsupportedOperationError(
      `Task ${taskId} is in a terminal state (${state}) and cannot be subscribed to.`,
    );
  }
}
