import { AgentPortError } from '@agentport/core';

/** The AgentCard of a remote A2A agent could not be fetched or is not a usable card (502). */
export class RemoteAgentCardError extends AgentPortError {
  /** The URL the card was read from. */
  readonly cardUrl: string;

  constructor(cardUrl: string, reason: string, options: { cause?: unknown } = {}) {
    super({
      code: 'remote_agent_card_unavailable',
      message: `Could not use the AgentCard at ${cardUrl}: ${reason}`,
      status: 502,
      cause: options.cause,
    });
    this.name = 'RemoteAgentCardError';
    this.cardUrl = cardUrl;
  }
}
