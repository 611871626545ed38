import type { Client } from '@a2a-js/sdk/client';
import { type Agent, defineAgent } from '@agentport/core';
import { expect } from 'vitest';
import { eventually, textRequest } from './sdk-client.ts';

/** An agent that runs until aborted, with the inputs it started and those it saw aborted. */
export interface WaitingAgent {
  agent: Agent;
  started: string[];
  aborted: string[];
}

/** Creates a {@link WaitingAgent} named `waiting` (it yields only once aborted: too late). */
export function createWaitingAgent(): WaitingAgent {
  const started: string[] = [];
  const aborted: string[] = [];
  const agent = defineAgent({
    name: 'waiting',
    async *run(input, { signal }) {
      started.push(input);
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      aborted.push(input);
      yield { type: 'text-delta', delta: 'too late' };
    },
  });
  return { agent, started, aborted };
}

/**
 * Sends `input` as a blocking message in `contextId` and goes away once the agent has started it;
 * resolves once the call has failed for it and the agent has seen its abort.
 */
export async function sendAndLeave(
  client: Client,
  waiting: WaitingAgent,
  input: string,
  contextId: string,
): Promise<void> {
  const controller = new AbortController();
  const answer = client.sendMessage(textRequest(input, { contextId }), {
    signal: controller.signal,
  });
  answer.catch(() => undefined);
  await eventually(async () => (waiting.started.includes(input) ? true : undefined));
  controller.abort();
  await expect(answer).rejects.toThrow();
  await eventually(async () => (waiting.aborted.includes(input) ? true : undefined));
}
