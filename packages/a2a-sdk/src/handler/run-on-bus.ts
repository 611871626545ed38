import type { SendMessageRequest, Task, TaskState } from '@a2a-js/sdk';
import type {
  AgentExecutionEvent,
  AgentExecutor,
  ExecutionEventBus,
  ExecutionEventBusManager,
  RequestContext,
  ServerCallContext,
  TaskStore,
} from '@a2a-js/sdk/server';
import { failureEvents } from './failure-events.ts';

/**
 * The tasks a message refers to (`referenceTaskIds`) that the store has, for the executor's
 * request context, as the SDK's path loads them; undefined when it refers to none. One that is
 * missing is left out without a word (the SDK's path logs the caller's id as given).
 */
export async function loadReferenceTasks(
  store: TaskStore,
  params: SendMessageRequest,
  context: ServerCallContext,
): Promise<Task[] | undefined> {
  const ids = params.message?.referenceTaskIds ?? [];
  if (ids.length === 0) return undefined;
  const tasks: Task[] = [];
  for (const id of ids) {
    const task = await store.load(id, context);
    if (task !== undefined) tasks.push(task);
  }
  return tasks;
}

/**
 * Runs the executor on a task's bus: a rejection fails the task on the bus; the bus is then
 * settled as the SDK settles it (kept alive in `keepBusAlive` states, else finished and cleaned
 * up).
 */
export function executeOnBus(
  executor: AgentExecutor,
  buses: ExecutionEventBusManager,
  keepBusAlive: ReadonlySet<TaskState>,
  bus: ExecutionEventBus,
  requestContext: RequestContext,
): void {
  const { taskId, context } = requestContext;
  let lastTask: Task | undefined;
  let lastState: TaskState | undefined;
  const track = (event: AgentExecutionEvent) => {
    if (event.kind === 'task') lastTask = event.data;
    const state =
      event.kind === 'task' || event.kind === 'statusUpdate' ? event.data.status?.state : undefined;
    if (state !== undefined) lastState = state;
  };
  bus.on('event', track);
  executor
    .execute(requestContext, bus)
    .catch((error: unknown) => {
      console.error(`Agent execution failed for task ${taskId}:`, error);
      for (const event of failureEvents(requestContext, lastTask, error)) bus.publish(event);
    })
    .finally(() => {
      bus.off('event', track);
      if (buses.settleByTaskId?.(taskId, bus, lastState, context)) return;
      if (lastState !== undefined && keepBusAlive.has(lastState)) return;
      bus.finished();
      buses.cleanupByTaskId(taskId, context);
    });
}
