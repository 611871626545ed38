import { AgentFailureError } from './agent-failure-error.ts';
import { AgentPortError } from './agentport-error.ts';

/** The codes by which a task's failure is the caller's doing: its input, not the agent. */
const CALLER_CODES = new Set(['invalid_input', 'invalid_tool_arguments']);

/** What a remote agent said when its task failed. */
export interface RemoteTaskFailure {
  /** The local name of the remote agent. */
  agentName: string;
  /** The code the remote reported, if any. */
  code?: string | undefined;
  /** The message the remote reported, if any. */
  message?: string | undefined;
}

/**
 * The local error for a remote task that failed, for remote-agent adapters (and for the `error`
 * event of a hand-written agent, see `errorFromEvent`): a failure the remote
 * put down to the caller's input (`invalid_input`, `invalid_tool_arguments`) is a 400 with that
 * code, as it would be were the agent local; anything else an `AgentFailureError` (500) with the
 * remote's code and message.
 *
 * @example
 * throw remoteTaskError({ agentName: 'remote-echo', code: task.error?.code, message: task.error?.message });
 */
export function remoteTaskError(failure: RemoteTaskFailure): AgentPortError {
  const { agentName, code, message } = failure;
  if (code !== undefined && CALLER_CODES.has(code)) {
    return new AgentPortError({
      code,
      message: message ?? `The input was refused by agent '${agentName}'`,
      status: 400,
    });
  }
  return new AgentFailureError({
    agentName,
    ...(code === undefined ? {} : { code }),
    ...(message === undefined ? {} : { message }),
  });
}
