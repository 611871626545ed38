import { AgentPortError } from '@agentport/core';

/** The remote did not answer within the client's timeout (504). */
export class RemoteTimeoutError extends AgentPortError {
  /** The client operation that failed, such as `getTask`. */
  readonly operation: string;
  /** The URL that was requested, without credentials or query. */
  readonly url: string;
  /** The timeout that ran out, in milliseconds. */
  readonly timeoutMs: number;

  constructor(operation: string, url: string, timeoutMs: number) {
    super({
      code: 'remote_timeout',
      message: `${operation} failed: ${url} did not answer within ${timeoutMs} ms`,
      status: 504,
    });
    this.name = 'RemoteTimeoutError';
    this.operation = operation;
    this.url = url;
    this.timeoutMs = timeoutMs;
  }
}
