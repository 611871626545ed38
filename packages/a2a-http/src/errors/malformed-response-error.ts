import { AgentPortError } from '@agentport/core';

/** The remote answered something that is not the expected JSON (or SSE) shape (502). */
export class MalformedResponseError extends AgentPortError {
  /** The client operation that failed, such as `getCard`. */
  readonly operation: string;
  /** What was wrong with the answer. */
  readonly detail: string;

  constructor(operation: string, detail: string, options: { cause?: unknown } = {}) {
    super({
      code: 'malformed_response',
      message: `${operation} failed: the remote answered ${detail}`,
      status: 502,
      cause: options.cause,
    });
    this.name = 'MalformedResponseError';
    this.operation = operation;
    this.detail = detail;
  }
}
