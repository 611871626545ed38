import { AgentPortError } from './agentport-error.ts';

/** A run or task was canceled, by its caller's abort signal or a cancel request (409). */
export class CancellationError extends AgentPortError {
  constructor(message = 'The run was canceled', options: { cause?: unknown } = {}) {
    super({ code: 'canceled', message, status: 409, cause: options.cause });
    this.name = 'CancellationError';
  }
}
