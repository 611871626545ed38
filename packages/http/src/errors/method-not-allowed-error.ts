import { AgentPortError } from '@agentport/core';

/** The route exists but not for this method (405); `allow` lists the methods it answers. */
export class MethodNotAllowedError extends AgentPortError {
  /** The methods the route answers, for the `Allow` header. */
  readonly allow: readonly string[];

  constructor(method: string, allow: readonly string[]) {
    super({
      code: 'method_not_allowed',
      message: `Method ${method} not allowed; use ${allow.join(', ')}`,
      status: 405,
    });
    this.name = 'MethodNotAllowedError';
    this.allow = allow;
  }
}
