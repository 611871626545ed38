import { AgentPortError } from './agentport-error.ts';

/**
 * A store cannot be reached (its database is down or refuses connections): the request may be
 * tried again later (503). The driver's error is kept as `cause`, never sent to a caller.
 */
export class StoreUnavailableError extends AgentPortError {
  constructor(options: { cause?: unknown } = {}) {
    super({
      code: 'store_unavailable',
      message: 'The store is not available: try again later',
      status: 503,
      cause: options.cause,
    });
    this.name = 'StoreUnavailableError';
  }
}
