import { AgentPortError } from '@agentport/core';

/** An SSE writer was created over something that cannot stream (500). */
export class StreamingUnsupportedError extends AgentPortError {
  constructor(reason: string) {
    super({
      code: 'streaming_unsupported',
      message: `Cannot write Server-Sent Events here: ${reason}`,
      status: 500,
    });
    this.name = 'StreamingUnsupportedError';
  }
}
