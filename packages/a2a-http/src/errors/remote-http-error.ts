import { AgentPortError } from '@agentport/core';

const MAX_MESSAGE_LENGTH = 300;
const MAX_CODE_LENGTH = 64;

/**
 * The remote's text as callers may be shown it: runs of control characters (line breaks, escape
 * sequences that would drive a terminal printing the error) become one space, and at most `max`
 * characters are kept, as the a2a-sdk remote agent shows its remote's errors.
 */
function printable(text: string, max: number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
}

/** Options of a {@link RemoteHttpError}. */
export interface RemoteHttpErrorOptions {
  /** The client operation that failed, such as `cancelTask`. */
  operation: string;
  /** The HTTP status the remote answered (200 for an `error` event inside a stream). */
  httpStatus: number;
  /** The `error.code` of the remote's JSON error body, when it sent one. */
  remoteCode?: string;
  /** The `error.message` of the remote's JSON error body, when it sent one. */
  remoteMessage?: string;
}

/** The remote answered with an error status (or reported an error in a stream) (502). */
export class RemoteHttpError extends AgentPortError {
  /** The client operation that failed. */
  readonly operation: string;
  /** The HTTP status the remote answered. */
  readonly httpStatus: number;
  /** The remote's error code, such as `task_not_cancelable`, when it sent one. */
  readonly remoteCode: string | undefined;
  /** The remote's error message, when it sent one (in `message` too, unless a 5xx's). */
  readonly remoteMessage: string | undefined;

  constructor(options: RemoteHttpErrorOptions) {
    const { operation, httpStatus, remoteCode, remoteMessage } = options;
    // A server error's message is about the remote's internals (a gateway serving a remote agent
    // would pass it to whoever calls): its code is shown, its message only kept on the error.
    const shown = httpStatus < 500 ? `: ${printable(remoteMessage ?? '', MAX_MESSAGE_LENGTH)}` : '';
    const detail =
      remoteCode === undefined ? '' : ` ${printable(remoteCode, MAX_CODE_LENGTH)}${shown}`;
    super({
      code: 'remote_http_error',
      message: `${operation} failed: the remote answered ${httpStatus}${detail}`,
      status: 502,
    });
    this.name = 'RemoteHttpError';
    this.operation = operation;
    this.httpStatus = httpStatus;
    this.remoteCode = remoteCode;
    this.remoteMessage = remoteMessage;
  }
}
