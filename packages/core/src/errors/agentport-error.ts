const brand = Symbol.for('agentport.error');

/**
 * The codes core's errors carry. An `AgentPortError` may carry another (an agent's own, or one a
 * remote agent reported); these are the ones callers and surfaces can rely on.
 */
export type AgentPortErrorCode =
  | 'invalid_input'
  | 'invalid_tool_arguments'
  | 'agent_not_found'
  | 'duplicate_agent'
  | 'task_not_found'
  | 'task_conflict'
  | 'task_not_waiting'
  | 'context_not_found'
  | 'input_required'
  | 'task_not_cancelable'
  | 'invalid_transition'
  | 'task_store_full'
  | 'events_ahead'
  | 'events_expired'
  | 'agent_failure'
  | 'canceled'
  | 'remote_unavailable'
  | 'store_unavailable'
  | 'internal_error';

/** A code: one of core's, or any other snake_case code (`string & {}` keeps the completions). */
type ErrorCode = AgentPortErrorCode | (string & {});

/** Options shared by every AgentPort error. */
export interface AgentPortErrorOptions {
  /** Stable machine-readable code, in snake_case. */
  code: ErrorCode;
  /** Human-readable message that is safe to show to a remote caller. */
  message: string;
  /** HTTP status a surface should answer with: 400 to 599 (anything else is taken as 500). */
  status?: number;
  /** The underlying error, kept for logs and never sent over the wire. */
  cause?: unknown;
}

/** An AgentPort error class, the base or a subclass. */
type ErrorClass = abstract new (...args: never[]) => AgentPortError;

/** Whether `value` is an error of `errorClass`, made by this copy of the package or another. */
function isErrorOf(errorClass: ErrorClass, value: unknown): boolean {
  if (typeof value !== 'object' || value === null || !(brand in value)) return false;
  if ((errorClass as unknown) === AgentPortError || value instanceof errorClass) return true;
  // Another copy's error: one of the classes it was made of has this class's name.
  for (
    let proto = Object.getPrototypeOf(value);
    proto !== null;
    proto = Object.getPrototypeOf(proto)
  ) {
    if ((proto as { constructor?: { name?: string } }).constructor?.name === errorClass.name) {
      return true;
    }
  }
  return false;
}

function isErrorStatus(status: unknown): status is number {
  return Number.isInteger(status) && (status as number) >= 400 && (status as number) <= 599;
}

/**
 * Base class of every AgentPort error: a stable `code`, an HTTP `status` hint and a message that
 * is safe to send to a remote caller.
 */
export class AgentPortError extends Error {
  readonly [brand] = true;
  /** Stable machine-readable code, in snake_case. */
  readonly code: ErrorCode;
  /** HTTP status a surface should answer with. */
  readonly status: number;

  constructor(options: AgentPortErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AgentPortError';
    this.code = options.code;
    // An error answered with 200 (or 999) would not read as an error: such a status, from an
    // agent's own error say, is taken as the 500 it stands for.
    this.status = isErrorStatus(options.status) ? options.status : 500;
  }

  /**
   * Whether a value is an error of this class (any AgentPort error, called on the base class),
   * even one created by another copy of this package.
   */
  static isInstance<T extends ErrorClass>(this: T, value: unknown): value is InstanceType<T> {
    // biome-ignore lint/complexity/noThisInStatic: the class it is called on is the one checked
    return isErrorOf(this, value);
  }
}
