import type { AgentRunOptions } from '@agentport/core';
import { type ActionStreamOptions, openSSE } from '@agentport/http';
import {
  rejoinStream,
  type StreamedAgent,
  type StreamRun,
  type StreamRuns,
} from '@agentport/http/internal';
import type { Context } from 'hono';
import type { RunRequest } from '../definitions.ts';
import type { Runner } from '../runner.ts';

/** A run of the runner by the name of the agent asked, as a stream run's agent. */
function runnerAgent(runner: Runner, name: string): StreamedAgent {
  return {
    name,
    stream: (input: string, options?: AgentRunOptions) =>
      runner.run({ agent_name: name, input, stream: true }, options),
  };
}

/**
 * `POST /runs` with `stream: true`: the run becomes a task of `runs`' store (its agent the one
 * asked, whatever it hands off to), its stream the run's events numbered by the task's log, with
 * a `Content-Location` naming where it is rejoined (`{path}/{id}/stream`). An unknown agent is a
 * plain 404 before any task.
 */
export function streamRun(
  context: Context,
  runs: StreamRuns,
  runner: Runner,
  request: RunRequest,
  options: ActionStreamOptions,
): Promise<Response> {
  const { agent_name, input } = request;
  runner.getAgentDef(agent_name);
  return runs
    .start(runnerAgent(runner, agent_name), input)
    .then((run) => openRunStream(context, run, input, options));
}

/**
 * The SSE answer of a stream run. Its callbacks are made here, apart from the request's own
 * closures: the writer keeps `onClose` for the stream's life, and with it what it names.
 */
function openRunStream(
  context: Context,
  run: StreamRun,
  input: string,
  options: ActionStreamOptions,
): Response {
  const location = `${context.req.path}/${run.id}/stream`;
  return openSSE(
    context,
    (writer) => run.open(writer, input),
    { ...options, headers: { 'content-location': location }, onClose: () => run.left() },
    () => run.cancel(),
  );
}

/**
 * `GET /runs/{id}/stream`: a streamed run rejoined after `Last-Event-ID` (or `?lastEventId`), in
 * the format `POST /runs` streamed it, live to its end; 404 for a task of an agent the runner does
 * not know, 400 / 410 as rest-sse's rejoin route.
 */
export function rejoinRun(
  context: Context,
  runs: StreamRuns,
  runner: Runner,
  options: ActionStreamOptions,
): Promise<Response> {
  const serves = (agentName: string): boolean =>
    runner.listAgents().some((agent) => agent.name === agentName);
  return rejoinStream(context, runs, serves, context.req.param('id') ?? '', options);
}
