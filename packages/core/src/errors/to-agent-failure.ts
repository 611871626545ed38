import { AgentFailureError } from './agent-failure-error.ts';
import { AgentPortError } from './agentport-error.ts';

/**
 * What an agent threw, as its callers are told it on every surface: its own AgentPort error as it
 * is, anything else a safe `agent_failure` keeping the original as `cause` (for the failure log).
 */
export function toAgentFailure(error: unknown, agentName: string): AgentPortError {
  if (AgentPortError.isInstance(error)) return error;
  return new AgentFailureError({ agentName, cause: error });
}
