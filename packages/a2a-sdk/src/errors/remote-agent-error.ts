import { AgentPortError } from '@agentport/core';

/** A call to a remote A2A agent failed: the network, the HTTP exchange or an A2A error (502). */
export class RemoteAgentError extends AgentPortError {
  /** The local name of the remote agent. */
  readonly agentName: string;

  constructor(agentName: string, reason: string, options: { cause?: unknown } = {}) {
    super({
      code: 'remote_agent_error',
      message: `Remote agent '${agentName}' could not be called: ${reason}`,
      status: 502,
      cause: options.cause,
    });
    this.name = 'RemoteAgentError';
    this.agentName = agentName;
  }
}
