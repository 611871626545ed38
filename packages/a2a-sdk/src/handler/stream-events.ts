import type { StreamResponse, Task } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';

/** The task as answered: its history cut to the last `historyLength` messages when given. */
export function applyHistoryLength(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined) return task;
  return { ...task, history: historyLength <= 0 ? [] : (task.history ?? []).slice(-historyLength) };
}

/** A bus event as a stream response. */
export function toStreamResponse(event: AgentExecutionEvent): StreamResponse {
  switch (event.kind) {
    case 'message':
      return { payload: { $case: 'message', value: event.data } };
    case 'statusUpdate':
      return { payload: { $case: 'statusUpdate', value: event.data } };
    case 'artifactUpdate':
      return { payload: { $case: 'artifactUpdate', value: event.data } };
    case 'task':
      return { payload: { $case: 'task', value: event.data } };
  }
}

/** What a stream has been so far: nothing yet, a message, or a task and its updates. */
export type StreamPattern = 'undetermined' | 'message' | 'task';

/** The SDK's stream ordering rules: a message alone, or a task then its updates. */
export function orderingViolation(
  pattern: StreamPattern,
  event: AgentExecutionEvent,
): UnsupportedOperationError | undefined {
  if (pattern === 'message') {
    return new UnsupportedOperationError(`Received ${event.kind} after message-only response.`);
  }
  if (pattern === 'task' && (event.kind === 'task' || event.kind === 'message')) {
    return new UnsupportedOperationError(
      `Stream ordering violation: received ${event.kind} in task lifecycle stream.`,
    );
  }
  if (pattern === 'undetermined' && event.kind !== 'message' && event.kind !== 'task') {
    return new UnsupportedOperationError(
      `Received ${event.kind} before initial 'Message'/'Task' event.`,
    );
  }
  return undefined;
}
