import { type AgentRunOptions, textOf } from '@agentport/core';
import { type ActionStreamOptions, openSSE } from '@agentport/http';
import {
  rejoinStream,
  type StreamedAgent,
  type StreamRun,
  type StreamRuns,
} from '@agentport/http/internal';
import type { Context } from 'hono';
import type { ParsedRunRequest, RunRequest } from '../definitions.ts';
import type { Runner } from '../runner.ts';

/**
 * A run of the runner by the name of the agent asked, as a stream run's agent: the request as
 * sent (the run's text is the task's input; the runner reads the input items themselves).
 */
function runnerAgent(runner: Runner, request: RunRequest): StreamedAgent {
  return {
    name: request.agent_name,
    stream: (_text: string, options?: AgentRunOptions) =>
      runner.run({ ...request, stream: true }, options),
  };
}

/** The text of a run's new message: its string input, or the last input item's text parts. */
function inputText(input: ParsedRunRequest['input']): string {
  if (typeof input === 'string') return input;
  return textOf(input[input.length - 1]?.parts ?? []);
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
  checked: { request: RunRequest; parsed: ParsedRunRequest },
  options: ActionStreamOptions,
): Promise<Response> {
  const { request, parsed } = checked;
  runner.getAgentDef(parsed.agent_name);
  const input = inputText(parsed.input);
  return runs
    .start(runnerAgent(runner, request), input)
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
