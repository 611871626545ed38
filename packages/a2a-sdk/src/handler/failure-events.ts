import type { Message, Task } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent, type RequestContext } from '@a2a-js/sdk/server';
import { randomUuid } from '@agentport/core/internal';

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string' || error === null || error === undefined) return String(error);
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}

/**
 * The events that end a task whose executor threw, as the SDK's streaming path publishes them: a
 * failed task first if none was published yet, then a `failed` status whose message carries the
 * error ("Agent execution error: ...").
 */
export function failureEvents(
  requestContext: RequestContext,
  publishedTask: Task | undefined,
  error: unknown,
): AgentExecutionEvent[] {
  const taskId = publishedTask?.id ?? requestContext.taskId;
  const contextId = publishedTask?.contextId ?? requestContext.contextId;
  const status = () => ({
    state: TaskState.TASK_STATE_FAILED,
    message: {
      role: Role.ROLE_AGENT,
      messageId: randomUuid(),
      taskId,
      contextId,
      parts: [
        {
          content: { $case: 'text', value: `Agent execution error: ${errorText(error)}` },
          mediaType: 'text/plain',
          filename: '',
          metadata: {},
        },
      ],
      metadata: {},
      extensions: [],
      referenceTaskIds: [],
    } satisfies Message,
    timestamp: new Date().toISOString(),
  });
  const events: AgentExecutionEvent[] = [];
  if (publishedTask === undefined) {
    events.push(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: status(),
        artifacts: [],
        history: [requestContext.userMessage],
        metadata: {},
      }),
    );
  }
  events.push(AgentEvent.statusUpdate({ taskId, contextId, status: status(), metadata: {} }));
  return events;
}
