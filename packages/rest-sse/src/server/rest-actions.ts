import type { Agent } from '@agentport/core';
import { checkedOutput, pacedEvents } from '@agentport/core/internal';
import {
  type ActionStreamOptions,
  agentFailure,
  parseJsonText,
  pumpAgentEvents,
  type RouteAction,
  type SSEWriter,
  sseErrorMessage,
} from '@agentport/http';
import { invokeRequestSchema } from './invoke-request.ts';

/**
 * Starts an agent's run on an open SSE writer: its events become SSE events; a run that cannot
 * start ends the stream with an `error` event.
 */
export function streamAgentInto(writer: SSEWriter, agent: Agent, input: string): void {
  try {
    // A hand-written agent's stream gives the event loop turns as a defineAgent one does.
    const events = pacedEvents(agent.stream(input, { signal: writer.signal }));
    pumpAgentEvents(events, writer, agent.name);
  } catch (error) {
    // A stream that throws on call is the agent's failure, written as the pump writes one.
    writer.write({ ...sseErrorMessage(agentFailure(error, agent.name)), id: 1 });
    writer.close();
  }
}

/** `POST /{name}/invoke`: the agent's result as `{ result }`, its failure as `agent_failure`. */
export function invokeAction(agent: Agent, maxBodyBytes: number): RouteAction {
  return {
    maxBodyBytes,
    async run(call) {
      const { input } = parseJsonText(call.body, invokeRequestSchema);
      let result: string;
      try {
        result = checkedOutput(await agent.invoke(input, { signal: call.signal }), agent.name);
      } catch (error) {
        throw agentFailure(error, agent.name);
      }
      return { status: 200, json: JSON.stringify({ result }) };
    },
  };
}

/** `POST /{name}/stream`: an SSE stream of the agent's events; a body error is a JSON answer. */
export function streamAction(
  agent: Agent,
  maxBodyBytes: number,
  streamOptions: ActionStreamOptions,
): RouteAction {
  return {
    maxBodyBytes,
    streamOptions,
    run(call) {
      const { input } = parseJsonText(call.body, invokeRequestSchema);
      return { stream: (writer) => streamAgentInto(writer, agent, input) };
    },
  };
}
