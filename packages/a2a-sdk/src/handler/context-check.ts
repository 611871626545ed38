import type { SendMessageRequest } from '@a2a-js/sdk';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { TaskRunner } from '@agentport/core';
import { readConversation } from '@agentport/core/internal';

/**
 * Refuses a message that starts a task in the conversation of another agent (its `contextId`
 * names a conversation the runner's store keeps for another agent) with TaskNotFound, the A2A
 * error for an id the server does not know: another agent's conversation is never joined nor
 * shown. Resolves at once (no store read) for a message without a `contextId` or with a `taskId`
 * (the task's own check applies then), or without a runner.
 */
export async function checkContext(
  runner: TaskRunner | undefined,
  params: SendMessageRequest,
): Promise<void> {
  const contextId = params.message?.contextId;
  if (runner === undefined || !contextId || params.message?.taskId) return;
  const conversation = await readConversation(runner.store, runner.conversations, contextId, {
    limit: 0,
  });
  if (conversation !== undefined && conversation.agentName !== runner.agent.name) {
    throw new TaskNotFoundError(`Context not found: ${contextId}`);
  }
}
