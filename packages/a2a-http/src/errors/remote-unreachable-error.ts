import { AgentPortError } from '@agentport/core';

/** The system error code (`ECONNREFUSED`) of a node:http error, or of the cause of fetch's. */
function systemCodeOf(cause: unknown): string | undefined {
  for (const error of [cause, (cause as { cause?: unknown } | undefined)?.cause]) {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  }
  return undefined;
}

/** The remote could not be reached: connection refused, unknown host, reset (502). */
export class RemoteUnreachableError extends AgentPortError {
  /** The client operation that failed, such as `createTask`. */
  readonly operation: string;
  /** The URL that was requested, without credentials or query. */
  readonly url: string;

  constructor(operation: string, url: string, cause: unknown) {
    const systemCode = systemCodeOf(cause);
    super({
      code: 'remote_unreachable',
      message: `${operation} failed: cannot reach ${url}${systemCode ? ` (${systemCode})` : ''}`,
      status: 502,
      cause,
    });
    this.name = 'RemoteUnreachableError';
    this.operation = operation;
    this.url = url;
  }
}
