import { AgentPortError } from '@agentport/core';

/** The request body is not well-formed JSON, or not UTF-8 (400). */
export class InvalidJsonError extends AgentPortError {
  constructor(message = 'Request body is not valid JSON') {
    super({ code: 'invalid_json', message, status: 400 });
    this.name = 'InvalidJsonError';
  }
}
