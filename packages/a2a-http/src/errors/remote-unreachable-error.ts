import { AgentPortError } from '@agentport/core';

function systemCodeOf(cause: unknown): string | undefined {
  const inner = (cause as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof inner?.code === 'string' ? inner.code : undefined;
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
