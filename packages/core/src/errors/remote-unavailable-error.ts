import { AgentPortError } from './agentport-error.ts';

/**
 * A remote agent cannot be reached yet: its card could not be fetched, and the server serving it
 * keeps trying (503). `retryAfterSeconds`, when known, is how soon the next try is.
 */
export class RemoteUnavailableError extends AgentPortError {
  /** The name the remote agent is served under. */
  readonly agentName: string;
  /** How many seconds until the server tries the remote again, for `Retry-After`. */
  readonly retryAfterSeconds: number | undefined;

  constructor(agentName: string, options: { retryAfterSeconds?: number } = {}) {
    super({
      code: 'remote_unavailable',
      message: `The remote agent '${agentName}' is not available yet: try again later`,
      status: 503,
    });
    this.name = 'RemoteUnavailableError';
    this.agentName = agentName;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
