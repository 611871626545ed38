import { AgentPortError } from '@agentport/core';

/** No route matches the request path (404). */
export class RouteNotFoundError extends AgentPortError {
  /** The path that was asked for. */
  readonly path: string;

  constructor(path: string) {
    super({ code: 'not_found', message: `No route for ${path}`, status: 404 });
    this.name = 'RouteNotFoundError';
    this.path = path;
  }
}
