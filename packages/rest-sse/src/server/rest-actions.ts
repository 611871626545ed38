import type { Agent } from '@agentport/core';
import { checkedOutput } from '@agentport/core/internal';
import {
  type ActionAnswer,
  type ActionStreamOptions,
  agentFailure,
  parseJsonText,
  type RouteAction,
} from '@agentport/http';
import type { StreamRun, StreamRuns } from '@agentport/http/internal';
import { invokeRequestSchema } from './invoke-request.ts';

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

/** Where a stream posted at `path` (`.../{name}/stream`) is rejoined: its task's stream. */
export function rejoinPath(path: string, taskId: string): string {
  return `${path.slice(0, path.lastIndexOf('/'))}/tasks/${taskId}/stream`;
}

/**
 * The answer of a stream run, made apart from the request's closures: what its callbacks hold
 * (the writer keeps `closed` for the stream's life) is the run and its input, nothing else.
 */
function streamAnswer(run: StreamRun, location: string, input: string): ActionAnswer {
  return {
    headers: { 'content-location': location },
    stream: (writer) => run.open(writer, input),
    unopened: () => run.cancel(),
    closed: () => run.left(),
  };
}

/**
 * `POST /{name}/stream`: the run becomes a task of `runs`' store, its stream the agent's events
 * numbered by the task's log, with a `Content-Location` naming where it is rejoined; a body
 * error (or a store that takes no task) is a JSON answer.
 */
export function streamAction(
  agent: Agent,
  runs: StreamRuns,
  maxBodyBytes: number,
  streamOptions: ActionStreamOptions,
): RouteAction {
  return {
    maxBodyBytes,
    streamOptions,
    run(call) {
      const { input } = parseJsonText(call.body, invokeRequestSchema);
      // Read here: a closure naming `call` would keep it, and its body, for the stream's life.
      const { path } = call;
      // Promise steps, not an async function: this is on every stream's path.
      return runs
        .start(agent, input)
        .then((run) => streamAnswer(run, rejoinPath(path, run.id), input));
    },
  };
}
