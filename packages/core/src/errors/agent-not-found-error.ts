import { AgentPortError } from './agentport-error.ts';

/** No agent is registered under the requested name (404). */
export class AgentNotFoundError extends AgentPortError {
  /** The name that was asked for. */
  readonly agentName: string;

  constructor(agentName: string) {
    super({ code: 'agent_not_found', message: `Agent '${agentName}' not found`, status: 404 });
    this.name = 'AgentNotFoundError';
    this.agentName = agentName;
  }
}
