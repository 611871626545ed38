import { AgentPortError } from './agentport-error.ts';

/** An agent is already registered under this name (409). */
export class DuplicateAgentError extends AgentPortError {
  /** The name that is taken. */
  readonly agentName: string;

  constructor(agentName: string) {
    super({
      code: 'duplicate_agent',
      message: `An agent named '${agentName}' is already registered`,
      status: 409,
    });
    this.name = 'DuplicateAgentError';
    this.agentName = agentName;
  }
}
