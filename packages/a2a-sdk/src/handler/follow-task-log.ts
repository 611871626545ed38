import type { StreamResponse, SubscribeToTaskRequest } from '@a2a-js/sdk';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { ExecutionEventQueue, type ServerCallContext } from '@a2a-js/sdk/server';
import { TaskNotFoundError as CoreNotFound, type Task, type TaskRunner } from '@agentport/core';
import { publishTaskLog } from '../executor/log-bridge.ts';
import { TaskPublisher } from '../executor/task-publisher.ts';
import { ListenerExecutionEventBus } from '../store/event-bus.ts';
import { a2aStateOf, a2aTaskOf } from '../store/task-view.ts';
import { onCallerGone } from './abortable-call-context.ts';
import { toStreamResponse } from './stream-events.ts';
import { checkSubscribable, subscribedTaskId } from './subscribe-checks.ts';

async function unfinishedTask(runner: TaskRunner, taskId: string): Promise<Task> {
  let task: Task;
  try {
    task = await runner.get(taskId);
  } catch (error) {
    if (error instanceof CoreNotFound) throw new TaskNotFoundError(`Task not found: ${taskId}`);
    throw error;
  }
  checkSubscribable(taskId, a2aStateOf(task.status));
  return task;
}

/**
 * SubscribeToTask over a core runner's log, whichever surface runs the task: the task as it is
 * (a snapshot at its sequence number N), then every event of its log after N, published as the
 * executor publishes a run's (text as `output` artifact chunks, tool calls as working statuses),
 * until it ends or needs input; the SDK's checks and errors. It stops as soon as the caller goes.
 */
export async function* followTaskLog(
  streaming: boolean,
  runner: TaskRunner,
  params: SubscribeToTaskRequest,
  context: ServerCallContext,
): AsyncGenerator<StreamResponse, void, undefined> {
  const taskId = subscribedTaskId(streaming, params);
  const task = await unfinishedTask(runner, taskId);
  const bus = new ListenerExecutionEventBus();
  const queue = new ExecutionEventQueue(bus);
  const gone = new AbortController();
  onCallerGone(context, () => {
    gone.abort();
    queue.stop();
  });
  const publisher = new TaskPublisher(bus, task.id, task.contextId);
  const publishing = publishTaskLog(runner, a2aTaskOf(task), task.seq, publisher, {
    resumed: true,
    signal: gone.signal,
  })
    .catch(() => undefined)
    .finally(() => queue.stop());
  try {
    for await (const event of queue.events()) yield toStreamResponse(event);
  } finally {
    gone.abort();
    queue.stop();
    await publishing;
  }
}
