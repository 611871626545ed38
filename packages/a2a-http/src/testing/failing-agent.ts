import { AgentFailureError, defineAgent } from '@agentport/core';

/** A test agent that writes some text, then fails with its own code and message. */
export const failingAgent = defineAgent({
  name: 'failing',
  async *run() {
    yield { type: 'text-delta', delta: 'partial' };
    throw new AgentFailureError({
      agentName: 'failing',
      code: 'quota_exceeded',
      message: 'Out of quota',
    });
  },
});
