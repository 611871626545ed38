import type { Agent, TaskRunner } from '@agentport/core';
import { checkedOutput } from '@agentport/core/internal';
import {
  type ActionStreamOptions,
  agentFailure,
  parseJsonText,
  type RouteAction,
} from '@agentport/http';
import { invokeRequestSchema } from './invoke-request.ts';
import { writeTaskStream } from './task-stream.ts';

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

/** The path where a stream at `path` (`.../{name}/stream`) can be rejoined: its task's events. */
export function taskEventsPath(path: string, taskId: string): string {
  return `${path.slice(0, path.lastIndexOf('/'))}/tasks/${encodeURIComponent(taskId)}/events`;
}

/**
 * `POST /{name}/stream`: the run becomes a task of `runner`, streamed from its log (ids are its
 * sequence numbers); `locate` is told where it can be rejoined, before the stream starts, to name
 * in a `Content-Location` header. A body error is a JSON answer.
 */
export function streamAction(
  runner: TaskRunner,
  maxBodyBytes: number,
  streamOptions: ActionStreamOptions,
  locate?: (location: string) => void,
): RouteAction {
  return {
    maxBodyBytes,
    streamOptions,
    async run(call) {
      const { input } = parseJsonText(call.body, invokeRequestSchema);
      const task = await runner.submit(input);
      locate?.(taskEventsPath(call.path, task.id));
      return {
        stream: (writer) => writeTaskStream(writer, runner, task.id, { after: 0, cancels: true }),
      };
    },
  };
}
