import {
  type Agent,
  AgentFailureError,
  AgentPortError,
  type AgentProgressEvent,
  type AgentRunContext,
  defineAgent,
  type InputRequiredEvent,
  inputRequired,
  isSettledStatus,
  type Part,
} from '@agentport/core';
import { remoteTaskError } from '@agentport/core/internal';
import {
  type A2AHttpClient,
  type A2AHttpClientOptions,
  createA2AHttpClient,
  watchIdleMs,
} from '../client/create-a2a-http-client.ts';
import { StalledEventsError } from '../client/watch-task.ts';
import { MalformedResponseError } from '../errors/malformed-response-error.ts';
import { RemoteHttpError } from '../errors/remote-http-error.ts';
import { RemoteTimeoutError } from '../errors/remote-timeout-error.ts';
import { RemoteUnreachableError } from '../errors/remote-unreachable-error.ts';
import type { AgentCard } from '../wire/agent-card.ts';
import { MAX_WAIT_SECONDS } from '../wire/task-schemas.ts';
import type { A2ATask as Task } from '../wire/wire-task.ts';
import { agentNameFromCard } from './agent-name-from-card.ts';

/** Options of {@link createRemoteAgent}. */
export interface RemoteAgentOptions extends A2AHttpClientOptions {
  /** The local agent name (default: the card's name made valid). */
  name?: string;
  /** The local description (default: the card's). */
  description?: string;
  /** Aborts fetching the card. */
  signal?: AbortSignal;
  /**
   * How long a remote task's events stream may send nothing, not even a heartbeat, before the
   * agent stops reading it and long-polls the task instead (default 60 s; `Infinity` for no
   * limit). Not a positive number: creating the agent throws an InvalidInputError.
   */
  idleTimeoutMs?: number;
}

/** A core Agent that runs on a remote hand-rolled A2A server, with the card it came from. */
export interface RemoteAgent extends Agent {
  /** The remote's Agent Card, as fetched when the agent was created. */
  readonly card: AgentCard;
  /** The client the agent talks to the remote with. */
  readonly client: A2AHttpClient;
}

type WaitMode = 'events' | 'long-poll';

/** What every run of one remote agent shares. */
interface Remote {
  readonly client: A2AHttpClient;
  readonly idleTimeoutMs: number | undefined;
}

/** How long one long-poll request waits before `waitForTask` asks again. */
const LONG_POLL_SECONDS = MAX_WAIT_SECONDS;

/** What a local run that paused on a remote pause keeps, to answer it on the same remote task. */
interface RemotePause {
  readonly remoteTaskId: string;
}

/** The remote task a paused local run's `resumeState` names, if it names one. */
function pausedRemoteTask(resumeState: unknown): string | undefined {
  if (typeof resumeState !== 'object' || resumeState === null) return undefined;
  const { remoteTaskId } = resumeState as Partial<RemotePause>;
  return typeof remoteTaskId === 'string' && remoteTaskId !== '' ? remoteTaskId : undefined;
}

/**
 * The end of a settled remote task: its output when completed; a pause of the local run when
 * it waits for input (its question, its answer's schema, and the remote task to answer as state);
 * else the error it ended with.
 */
function settle(task: Task, agentName: string): string | InputRequiredEvent {
  if (task.status === 'completed') return task.output ?? '';
  if (task.status === 'input-required' || task.status === 'auth-required') {
    const question: readonly Part[] = task.statusMessage?.parts ?? [];
    const state: RemotePause = { remoteTaskId: task.id };
    return inputRequired(
      question.length === 0 ? `The remote task '${task.id}' waits for input` : question,
      {
        state,
        ...(task.inputSchema === undefined ? {} : { schema: task.inputSchema }),
      },
    );
  }
  if (task.status === 'canceled') {
    // Canceled over there, not by this run's caller (whose abort ends the run as canceled
    // before this): the remote failed to answer, as the a2a-sdk remote agent reports it.
    throw new AgentFailureError({
      agentName,
      code: 'remote_task_canceled',
      message: `The remote task '${task.id}' was canceled`,
    });
  }
  throw remoteTaskError({
    agentName,
    code: task.error?.code ?? 'agent_failure',
    message: task.error?.message ?? `The remote task '${task.id}' failed`,
  });
}

/** Yields the growth of the task's output as text deltas; returns the output seen so far. */
function* deltaOf(task: Task, seen: string): Generator<AgentProgressEvent, string> {
  const output = task.output ?? '';
  if (output.length > seen.length && output.startsWith(seen)) {
    yield { type: 'text-delta', delta: output.slice(seen.length) };
    return output;
  }
  return seen;
}

/**
 * How the events route can fail while long-polling the task still works: an error answer or
 * event, a connection that broke or went silent mid-stream, or an answer that is not a valid
 * event stream. A caller's abort, a task the remote does not know and a remote that does not
 * answer in time are not among them.
 */
function isEventsRouteFailure(error: unknown): boolean {
  return (
    error instanceof RemoteHttpError ||
    error instanceof RemoteUnreachableError ||
    error instanceof MalformedResponseError ||
    error instanceof StalledEventsError
  );
}

/** The last task the events route sent, and the output streamed as deltas from it. */
interface Followed {
  last: Task | undefined;
  streamed: string;
}

async function* followEvents(
  remote: Remote,
  id: string,
  signal: AbortSignal,
): AsyncGenerator<AgentProgressEvent, Followed> {
  const { client, idleTimeoutMs } = remote;
  let streamed = '';
  let last: Task | undefined;
  try {
    const watchOptions = idleTimeoutMs === undefined ? { signal } : { signal, idleTimeoutMs };
    for await (const task of client.watchTask(id, watchOptions)) {
      last = task;
      streamed = yield* deltaOf(task, streamed);
    }
  } catch (error) {
    // The remote has no events route, or its stream broke: long-polling still works.
    if (!isEventsRouteFailure(error) || signal.aborted) throw error;
  }
  return { last, streamed };
}

/** The message a run sends: its text when that is all it is, else its parts (files, data). */
function inputOf(input: string, context: AgentRunContext): string | Part[] {
  const { parts } = context.message;
  return parts.length === 1 && parts[0]?.kind === 'text' ? input : [...parts];
}

/**
 * Creates the remote task, or, for a run answering a remote pause, sends the message to that
 * task; in long-poll mode the same request waits for it to settle.
 */
function createRemoteTask(
  client: A2AHttpClient,
  mode: WaitMode,
  input: string,
  context: AgentRunContext,
): Promise<Task> {
  const { signal, metadata } = context;
  const message = inputOf(input, context);
  const paused = pausedRemoteTask(context.resumeState);
  if (paused !== undefined) {
    // Never abandoned in flight either: the remote task would be left running.
    return mode === 'long-poll'
      ? client.sendMessage(paused, message, { signal, waitSeconds: LONG_POLL_SECONDS })
      : client.sendMessage(paused, message);
  }
  const request = {
    input: message,
    ...(Object.keys(metadata).length === 0 ? {} : { metadata }),
  };
  // A waiting create is aborted with the caller: the server then cancels the task it made. A
  // plain create is never abandoned in flight, or the task it makes would be left running.
  return mode === 'long-poll'
    ? client.createTask(request, { signal, waitSeconds: LONG_POLL_SECONDS })
    : client.createTask(request);
}

/**
 * What a run tells its callers when the remote cannot be reached or does not answer in time: the
 * code and status of the client's error, without the remote's address (a gateway serving this
 * agent would hand it to anyone who calls); the client's error, address included, is the cause.
 */
function withoutAddress(error: unknown, agentName: string): unknown {
  const what =
    error instanceof RemoteUnreachableError
      ? 'cannot be reached'
      : error instanceof RemoteTimeoutError
        ? 'did not answer in time'
        : undefined;
  if (what === undefined) return error;
  const { code, status } = error as AgentPortError;
  return new AgentPortError({
    code,
    status,
    message: `Remote agent '${agentName}' ${what}`,
    cause: error,
  });
}

async function* runRemote(
  remote: Remote,
  mode: WaitMode,
  deltas: boolean,
  input: string,
  context: AgentRunContext,
): AsyncGenerator<AgentProgressEvent, string | InputRequiredEvent> {
  try {
    return yield* runRemoteTask(remote, mode, deltas, input, context);
  } catch (error) {
    throw withoutAddress(error, context.agent.name);
  }
}

/**
 * One run on the remote: its task created (or answered, see `createRemoteTask`), then followed
 * (`mode`) until it ends or pauses; with `deltas` (a `stream`), the output comes as `text-delta`
 * events that add up to it, whichever way it arrived.
 */
async function* runRemoteTask(
  remote: Remote,
  mode: WaitMode,
  deltas: boolean,
  input: string,
  context: AgentRunContext,
): AsyncGenerator<AgentProgressEvent, string | InputRequiredEvent> {
  const { signal } = context;
  const { client } = remote;
  const created = await createRemoteTask(client, mode, input, context);
  // A paused remote task is settled too: it waits for the local caller's answer, not canceled.
  let finished = isSettledStatus(created.status);
  try {
    signal.throwIfAborted();
    let task: Task | undefined = created;
    let streamed = '';
    if (mode === 'events' && !finished) {
      ({ last: task, streamed } = yield* followEvents(remote, created.id, signal));
    }
    if (task === undefined || !isSettledStatus(task.status)) {
      task = await client.waitForTask(created.id, { signal });
    }
    finished = true;
    // Streaming, the deltas add up to the output: what the events did not bring (all of it when
    // the events route failed before its first event, or the card offers no events) comes as one.
    if (deltas) yield* deltaOf(task, streamed);
    return settle(task, context.agent.name);
  } finally {
    // Given up on (caller abort, broken connection): cancel it so the remote stops working.
    if (!finished) void client.cancelTask(created.id).catch(() => undefined);
  }
}

/**
 * Wraps a remote hand-rolled A2A agent as a local core Agent: fetches its card (identity), then
 * `invoke` creates a task and long-polls it, `stream` follows its events as text deltas. Aborting
 * the caller's signal cancels the remote task. A remote task that pauses for input pauses the run
 * (`input-required`, its state naming the remote task), and the run that answers it sends the
 * answer to that remote task.
 *
 * @example
 * const remote = await createRemoteAgent({ baseUrl: 'http://127.0.0.1:8080/agents/echo' });
 * await remote.invoke('hello'); // 'hello', computed remotely
 */
export async function createRemoteAgent(options: RemoteAgentOptions): Promise<RemoteAgent> {
  const { baseUrl, signal } = options;
  // Refused here rather than at the first run.
  watchIdleMs(options.idleTimeoutMs);
  const client = createA2AHttpClient({
    baseUrl,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  const card = await client.getCard(signal === undefined ? {} : { signal });
  const remote: Remote = { client, idleTimeoutMs: options.idleTimeoutMs };
  const name = options.name ?? agentNameFromCard(card.name);
  const description = options.description ?? card.description;
  const define = (mode: WaitMode, deltas: boolean) =>
    defineAgent({
      name,
      ...(description === undefined ? {} : { description }),
      run: (input, context) => runRemote(remote, mode, deltas, input, context),
    });
  const streaming = card.capabilities?.streaming === true;
  const viaLongPoll = define('long-poll', false);
  const viaEvents = define(streaming ? 'events' : 'long-poll', true);
  return { ...viaEvents, invoke: viaLongPoll.invoke, card, client };
}
