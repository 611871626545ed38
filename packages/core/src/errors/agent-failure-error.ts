import { AgentPortError } from './agentport-error.ts';

/** Options of an {@link AgentFailureError}. */
export interface AgentFailureErrorOptions {
  /** The agent that failed. */
  agentName: string;
  /** A message safe to show to a remote caller; defaults to a generic one. */
  message?: string;
  /** A more specific code, such as one reported by a remote agent; defaults to `agent_failure`. */
  code?: string;
  /** The underlying error, kept for logs and never sent over the wire. */
  cause?: unknown;
}

/** An agent failed while running (500); its message is safe to send to a caller. */
export class AgentFailureError extends AgentPortError {
  /** The agent that failed. */
  readonly agentName: string;

  constructor(options: AgentFailureErrorOptions) {
    super({
      code: options.code ?? 'agent_failure',
      message: options.message ?? `Agent '${options.agentName}' failed`,
      status: 500,
      cause: options.cause,
    });
    this.name = 'AgentFailureError';
    this.agentName = options.agentName;
  }
}
