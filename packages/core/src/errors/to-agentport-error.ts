import { AgentPortError } from './agentport-error.ts';

/**
 * Turns anything thrown into an AgentPort error whose code, status and message are safe to send:
 * AgentPort errors pass through, anything else becomes a generic internal error (kept as `cause`).
 */
export function toAgentPortError(error: unknown): AgentPortError {
  if (AgentPortError.isInstance(error)) return error;
  return new AgentPortError({
    code: 'internal_error',
    message: 'Internal error',
    status: 500,
    cause: error,
  });
}
