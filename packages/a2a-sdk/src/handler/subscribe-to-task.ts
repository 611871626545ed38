import type { StreamResponse, SubscribeToTaskRequest } from '@a2a-js/sdk';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import {
  type ExecutionEventBusManager,
  ExecutionEventQueue,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { onCallerGone } from './abortable-call-context.ts';
import { toStreamResponse } from './stream-events.ts';
import { checkSubscribable, subscribedTaskId } from './subscribe-checks.ts';

/**
 * The task as it is, then its events until it ends or needs input, as the SDK's resubscribe
 * (its checks and errors); but the events' queue stops as soon as the caller goes away. (The
 * SDK's waits for the task's next event before it can end: a dropped subscription to a quiet
 * task, one waiting for input or working without a word, was held, its listeners on the task's
 * bus, until that came.)
 */
export async function* subscribeToTask(
  streaming: boolean,
  store: TaskStore,
  buses: ExecutionEventBusManager,
  params: SubscribeToTaskRequest,
  context: ServerCallContext,
): AsyncGenerator<StreamResponse, void, undefined> {
  const taskId = subscribedTaskId(streaming, params);
  // Listening starts before the task is read, so no event falls between the two.
  const bus = buses.getByTaskId(taskId, context);
  const queue = bus === undefined ? undefined : new ExecutionEventQueue(bus);
  if (queue !== undefined) onCallerGone(context, () => queue.stop());
  try {
    const task = await store.load(taskId, context);
    if (task === undefined) throw new TaskNotFoundError(`Task not found: ${taskId}`);
    checkSubscribable(taskId, task.status?.state);
    yield { payload: { $case: 'task', value: task } };
    if (queue === undefined) return;
    for await (const event of queue.events()) {
      const eventTaskId = event.kind === 'task' ? event.data.id : event.data.taskId;
      if (event.kind !== 'message' && eventTaskId === taskId) yield toStreamResponse(event);
    }
  } finally {
    queue?.stop();
  }
}
