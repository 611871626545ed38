/** Why a project could not be created. */
export type CreateProjectErrorCode = 'directory_not_empty' | 'not_a_directory' | 'invalid_name';

const BRAND = Symbol.for('create-agentport.create-project-error');

/** A project cannot be created where or as asked; the message says why and what to do instead. */
export class CreateProjectError extends Error {
  /** What went wrong, for code that reacts to it (the CLI exits with 1 on any of them). */
  readonly code: CreateProjectErrorCode;
  readonly [BRAND] = true;

  constructor(code: CreateProjectErrorCode, message: string) {
    super(message);
    this.name = 'CreateProjectError';
    this.code = code;
  }

  /** Whether `value` is a `CreateProjectError`, also one from another copy of this package. */
  static isInstance(value: unknown): value is CreateProjectError {
    return typeof value === 'object' && value !== null && BRAND in value;
  }
}
