import { AgentPortError } from '@agentport/core';

/**
 * The request body is larger than the limit (413). When it was refused before it was read to its
 * end (`bodyUnread`, as `limitBody` and the REST routes refuse every body over the limit), the
 * answer says `Connection: close`: the connection cannot carry another request, and Node ends it
 * once the answer is sent, rather than reading an upload it will refuse.
 */
export class PayloadTooLargeError extends AgentPortError {
  /** The limit, in bytes. */
  readonly maxBytes: number;
  /** Whether the body was refused before it was read to its end. */
  readonly bodyUnread: boolean;

  constructor(maxBytes: number, bodyUnread = false) {
    super({
      code: 'payload_too_large',
      message: `Request body larger than ${maxBytes} bytes`,
      status: 413,
    });
    this.name = 'PayloadTooLargeError';
    this.maxBytes = maxBytes;
    this.bodyUnread = bodyUnread;
  }
}
