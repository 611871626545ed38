import { AgentPortError } from '@agentport/core';

/** The server is shutting down and takes no new work (503). */
export class ShuttingDownError extends AgentPortError {
  constructor() {
    super({ code: 'shutting_down', message: 'The server is shutting down', status: 503 });
    this.name = 'ShuttingDownError';
  }
}
