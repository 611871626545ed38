import type { Message, Part, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type { Agent } from '@agentport/core';
import { checkedOutput, pacedEvents, randomUuid } from '@agentport/core/internal';
import {
  agentMessage,
  dataPart,
  failureParts,
  outputArtifact,
  textOfParts,
  textPart,
} from './parts.ts';
import { now } from './timestamp.ts';

/** A message to answer with a message: what the caller sent, in which conversation. */
export interface MessageReplyRequest {
  /** The caller's message (no `taskId`). */
  readonly message: Message;
  /** The conversation: the message's `contextId`, or a new one. */
  readonly contextId: string;
  /** Aborted when the caller goes away: the agent is aborted and nothing is kept. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The task that tells how a run answered with a message ended instead: `failed` (or `canceled`)
 * with the reason as its status message (also in its history, after the caller's message), and
 * the text produced before the end as its `output` artifact.
 */
function endedTask(
  request: MessageReplyRequest,
  state: TaskState,
  parts: Part[],
  streamed: string,
): Task {
  const { contextId } = request;
  const id = randomUuid();
  const message = agentMessage(id, contextId, parts);
  return {
    id,
    contextId,
    status: { state, message, timestamp: now() },
    artifacts: streamed === '' ? [] : [outputArtifact(streamed)],
    history: [{ ...request.message, contextId, taskId: id }, message],
    metadata: undefined,
  };
}

/** The task that tells a run answering with a message was canceled, with what it had produced. */
export function canceledTask(request: MessageReplyRequest, streamed: string): Task {
  return endedTask(
    request,
    TaskState.TASK_STATE_CANCELED,
    [textPart('The run was canceled')],
    streamed,
  );
}

/**
 * Runs an agent to its end on a message's text and answers with an agent Message holding its
 * output (in the message's conversation, without a task); when the run fails or is canceled,
 * answers with the failed or canceled Task instead, as a task-answering agent would end.
 */
export async function replyToMessage(
  agent: Agent,
  request: MessageReplyRequest,
  signal: AbortSignal,
): Promise<Message | Task> {
  const { contextId } = request;
  let streamed = '';
  try {
    const events = pacedEvents(
      agent.stream(textOfParts(request.message.parts), { signal, metadata: { contextId } }),
    );
    for await (const event of events) {
      if (event.type === 'text-delta') streamed += event.delta;
      else if (event.type === 'done') {
        return agentMessage('', contextId, [textPart(checkedOutput(event.output, agent.name))]);
      } else if (event.type === 'error') {
        if (signal.aborted) return canceledTask(request, streamed);
        return endedTask(
          request,
          TaskState.TASK_STATE_FAILED,
          [textPart(event.message), dataPart(event)],
          streamed,
        );
      }
    }
    return endedTask(
      request,
      TaskState.TASK_STATE_FAILED,
      [textPart(`Agent '${agent.name}' ended without a result`)],
      streamed,
    );
  } catch (error) {
    if (signal.aborted) return canceledTask(request, streamed);
    // Never put a raw error's message on the wire: it may say more than the caller should know.
    const parts = failureParts(error, agent.name);
    return endedTask(request, TaskState.TASK_STATE_FAILED, parts, streamed);
  }
}
