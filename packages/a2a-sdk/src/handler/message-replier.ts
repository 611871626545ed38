import type { AgentExecutor } from '@a2a-js/sdk/server';
import { InvalidInputError } from '@agentport/core';
import type { ClosableAgentExecutor } from '../executor/agent-executor.ts';

/** What answers a message with a message: the `reply` of {@link ClosableAgentExecutor}. */
export type MessageReplier = Pick<ClosableAgentExecutor, 'reply'>;

/**
 * What answers blocking new messages with a message for `replyWith`: undefined for `'task'`, the
 * executor for `'message'` (it must have a `reply`); anything else throws.
 */
export function replierOf(
  executor: AgentExecutor,
  replyWith: 'task' | 'message',
): MessageReplier | undefined {
  if (replyWith === 'task') return undefined;
  const replier = executor as Partial<MessageReplier>;
  if (replyWith !== 'message' || typeof replier.reply !== 'function') {
    throw new InvalidInputError(
      replyWith === 'message'
        ? "replyWith 'message' needs an executor that can reply (createAgentExecutor's)"
        : `replyWith must be 'task' or 'message', got '${String(replyWith)}'`,
      { field: 'replyWith' },
    );
  }
  return replier as MessageReplier;
}
