import {
  type Agent,
  type AgentInput,
  type ConverseOptions,
  type Task,
  TaskNotFoundError,
  type TaskRunner,
  type TurnResult,
} from '@agentport/core';
import {
  type ActionAnswer,
  type ActionStreamOptions,
  agentFailure,
  agentInputOf,
  parseJsonText,
  type RouteAction,
} from '@agentport/http';
import { type StreamRun, type StreamRuns, writeTaskLog } from '@agentport/http/internal';
import { invokeRequestSchema } from './invoke-request.ts';

/** The JSON of an invoke's answer: `{ result, contextId, status }`, and `taskId` when the agent asks. */
function turnJson(turn: TurnResult): string {
  const { output: result, contextId, status } = turn;
  return JSON.stringify(
    status === 'input-required'
      ? { result, contextId, status, taskId: turn.taskId }
      : { result, contextId, status },
  );
}

/**
 * `POST /{name}/invoke`: one turn of the agent's conversation through its runner (`converse`):
 * `{ result, contextId, status }`, with `taskId` and the question as `result` when the agent asks
 * something; a message naming a task (or a context) waiting for input answers it. The caller
 * leaving aborts the run.
 */
export function invokeAction(
  agent: Agent,
  runnerOf: () => TaskRunner,
  maxBodyBytes: number,
): RouteAction {
  return {
    maxBodyBytes,
    async run(call) {
      const { input, contextId, taskId } = parseJsonText(call.body, invokeRequestSchema);
      const options: ConverseOptions = { signal: call.signal };
      if (contextId !== undefined) options.contextId = contextId;
      if (taskId !== undefined) options.taskId = taskId;
      let turn: TurnResult;
      try {
        turn = await runnerOf().converse(agentInputOf(input), options);
      } catch (error) {
        throw agentFailure(error, agent.name);
      }
      return { status: 200, json: turnJson(turn) };
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
function streamAnswer(run: StreamRun, location: string, input: AgentInput): ActionAnswer {
  return {
    headers: { 'content-location': location, 'context-id': run.contextId },
    stream: (writer) => run.open(writer, input),
    unopened: () => run.cancel(),
    closed: () => run.left(),
  };
}

/** The answer of a resumed task: its log from the resumed task's `seq`, in a stream run's format. */
function resumedAnswer(runs: StreamRuns, task: Task, location: string): ActionAnswer {
  return {
    headers: { 'content-location': location, 'context-id': task.contextId },
    stream: (writer) => writeTaskLog(writer, runs, task, task.seq),
  };
}

/**
 * A stream naming a conversation or a task: the paused task it names (or its context has
 * waiting) is resumed with the message and its log streamed; else a new stream run in the context.
 * A task or context of another agent is 404, a task no longer waiting 409 (`resume`'s).
 */
async function continuedStream(
  agent: Agent,
  runner: TaskRunner,
  runs: StreamRuns,
  input: AgentInput,
  ids: { contextId?: string | undefined; taskId?: string | undefined },
  path: string,
): Promise<ActionAnswer> {
  const { contextId, taskId } = ids;
  if (taskId !== undefined && contextId !== undefined) {
    // A task of another conversation is not this one's to answer.
    if ((await runner.get(taskId)).contextId !== contextId) throw new TaskNotFoundError(taskId);
  }
  const waiting = taskId ?? (await runner.waitingIn(contextId as string));
  if (waiting === undefined) {
    const run = await runs.start(agent, input, { contextId });
    return streamAnswer(run, rejoinPath(path, run.id), input);
  }
  const resumed = await runner.resume(waiting, input);
  return resumedAnswer(runs, resumed, rejoinPath(path, resumed.id));
}

/**
 * `POST /{name}/stream`: the run becomes a task of `runs`' store, its stream the agent's events
 * numbered by the task's log, with a `Content-Location` naming where it is rejoined and a
 * `Context-Id` naming its conversation (a new one, its task's id, when none was named); it ends
 * with `done`, `error`, or `input-required` when the agent asks something. A message naming a
 * task (or a context) waiting for input resumes it and streams the rest of its log. A body error
 * (or a store that takes no task) is a JSON answer.
 */
export function streamAction(
  agent: Agent,
  runnerOf: () => TaskRunner,
  runs: StreamRuns,
  maxBodyBytes: number,
  streamOptions: ActionStreamOptions,
): RouteAction {
  return {
    maxBodyBytes,
    streamOptions,
    run(call) {
      const request = parseJsonText(call.body, invokeRequestSchema);
      const input = agentInputOf(request.input);
      // Read here: a closure naming `call` would keep it, and its body, for the stream's life.
      const { path } = call;
      if (request.contextId !== undefined || request.taskId !== undefined) {
        return continuedStream(agent, runnerOf(), runs, input, request, path);
      }
      // Promise steps, not an async function: this is on every stream's path.
      return runs
        .start(agent, input)
        .then((run) => streamAnswer(run, rejoinPath(path, run.id), input));
    },
  };
}
