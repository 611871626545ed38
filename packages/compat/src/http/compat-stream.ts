import type {
  AgentInput,
  AgentRunOptions,
  ConversationStore,
  Message,
  Task,
} from '@agentport/core';
import { randomUuid } from '@agentport/core/internal';
import { type ActionStreamOptions, openSSE } from '@agentport/http';
import {
  rejoinStream,
  type StreamedAgent,
  type StreamRun,
  type StreamRuns,
  writeTaskLog,
} from '@agentport/http/internal';
import type { Context } from 'hono';
import type { ParsedRunRequest, RunRequest } from '../definitions.ts';
import type { Runner } from '../runner.ts';

/** A checked run request: as sent (for the runner) and as parsed. */
export interface CheckedRunRequest {
  request: RunRequest;
  parsed: ParsedRunRequest;
}

/**
 * A run of the runner by the name of the agent asked, as a stream run's agent: the request as
 * sent (the runner reads the input items themselves), with the options the stream run gives
 * (its conversation's history, `contextId`, `taskId`).
 */
function runnerAgent(runner: Runner, request: RunRequest): StreamedAgent {
  return {
    name: request.agent_name,
    stream: (_input: AgentInput, options?: AgentRunOptions) =>
      runner.run({ ...request, stream: true }, options),
  };
}

/**
 * The headers of a stream's answer: where it is rejoined, and its conversation (a stream started
 * without a `conversation_id` learns its new one; its events are the shared stream format).
 */
function streamHeaders(context: Context, taskId: string, conversationId: string) {
  return {
    'content-location': `${context.req.path}/${taskId}/stream`,
    'conversation-id': conversationId,
  };
}

/**
 * Where a streamed run goes: the new message, its conversation (the one asked for; a new one
 * when earlier input items must join one), those items joined to it first. (Stream runs kept
 * without conversations hand the agent no history: the runner gives it the items then.)
 */
async function conversationOf(
  parsed: ParsedRunRequest,
  conversations: ConversationStore | undefined,
): Promise<{ message: AgentInput; contextId: string | undefined }> {
  const { input } = parsed;
  let contextId = parsed.conversation_id;
  if (typeof input === 'string') return { message: input, contextId };
  const message = input[input.length - 1] as Message;
  if (input.length > 1 && conversations !== undefined) {
    contextId ??= randomUuid();
    const messages = input.slice(0, -1);
    await conversations.append(contextId, { agentName: parsed.agent_name, messages });
  }
  return { message, contextId };
}

/**
 * `POST /runs` with `stream: true`: the run becomes a task of `runs`' store (its agent the one
 * asked, whatever it hands off to) in its conversation, its stream the run's events numbered by
 * the task's log, with a `Content-Location` naming where it is rejoined (`{path}/{id}/stream`)
 * and a `Conversation-Id`. When the conversation has a task waiting for input, the
 * message answers it and the stream follows that task from the answer on. An unknown agent, or
 * another agent's conversation, is a plain 404 before any task (a lost race to answer, 409).
 */
export function streamRun(
  context: Context,
  runs: StreamRuns,
  runner: Runner,
  checked: CheckedRunRequest,
  options: ActionStreamOptions,
): Promise<Response> {
  const { request, parsed } = checked;
  runner.getAgentDef(parsed.agent_name);
  const { input } = parsed;
  if (typeof input === 'string' && parsed.conversation_id === undefined) {
    // A new conversation with no task waiting: no read before the run (every stream's path).
    return runs
      .start(runnerAgent(runner, request), input)
      .then((run) => openRunStream(context, run, options));
  }
  return streamTurn(context, runs, runner, checked, options);
}

/** A streamed run in a conversation that may have a task waiting for its answer. */
async function streamTurn(
  context: Context,
  runs: StreamRuns,
  runner: Runner,
  { request, parsed }: CheckedRunRequest,
  options: ActionStreamOptions,
): Promise<Response> {
  const { message, contextId } = await conversationOf(parsed, runs.conversations);
  if (contextId !== undefined) {
    const taskRunner = runner.taskRunnerOf?.(parsed.agent_name);
    const waiting = await taskRunner?.waitingIn(contextId);
    if (taskRunner !== undefined && waiting !== undefined) {
      const resumed = await taskRunner.resume(waiting, message);
      return openResumedStream(context, runs, resumed, options);
    }
  }
  const startOptions = contextId === undefined ? undefined : { contextId };
  const run = await runs.start(runnerAgent(runner, request), message, startOptions);
  return openRunStream(context, run, options);
}

/**
 * The SSE answer of a stream run. Its callbacks are made here, apart from the request's own
 * closures: the writer keeps `onClose` for the stream's life, and with it what it names.
 */
function openRunStream(context: Context, run: StreamRun, options: ActionStreamOptions): Response {
  const headers = streamHeaders(context, run.id, run.contextId);
  return openSSE(
    context,
    (writer) => run.open(writer),
    { ...options, headers, onClose: () => run.left() },
    () => run.cancel(),
  );
}

/**
 * The SSE answer of a paused task the message resumed (a core runner runs it): its log after
 * the answer, live to its end or its next pause, as a rejoin streams it.
 */
function openResumedStream(
  context: Context,
  runs: StreamRuns,
  task: Task,
  options: ActionStreamOptions,
): Response {
  const headers = streamHeaders(context, task.id, task.contextId);
  return openSSE(context, (writer) => writeTaskLog(writer, runs, task, task.seq), {
    ...options,
    headers,
  });
}

/**
 * `GET /runs/{id}/stream`: a streamed run rejoined after `Last-Event-ID` (or `?lastEventId`), in
 * the format `POST /runs` streamed it, live to its end or its pause; 404 for a task of an agent
 * the runner does not know, 400 / 410 as rest-sse's rejoin route.
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
