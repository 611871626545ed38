import { AgentPortError } from './agentport-error.ts';

/** Input that does not have the expected shape: an invalid body, name or argument (400). */
export class InvalidInputError extends AgentPortError {
  /** Where the problem is, such as a field path, when known. */
  readonly field: string | undefined;

  constructor(message: string, options: { field?: string; cause?: unknown } = {}) {
    super({ code: 'invalid_input', message, status: 400, cause: options.cause });
    this.name = 'InvalidInputError';
    this.field = options.field;
  }
}
