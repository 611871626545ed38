import { AgentPortError } from './agentport-error.ts';

/** A `contextId` names a conversation of another agent, which this one cannot join (404). */
export class ContextNotFoundError extends AgentPortError {
  /** The context that was named. */
  readonly contextId: string;

  constructor(contextId: string) {
    super({ code: 'context_not_found', message: `Context '${contextId}' not found`, status: 404 });
    this.name = 'ContextNotFoundError';
    this.contextId = contextId;
  }
}
