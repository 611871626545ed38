import {
  ListTasksRequest,
  Role,
  SendMessageRequest,
  type SendMessageResult,
  TaskState,
} from '@a2a-js/sdk';
import {
  type Agent,
  AgentFailureError,
  type AgentInput,
  AgentPortError,
  type AgentProgressEvent,
  type AgentRunContext,
  type AgentRunOptions,
  CancellationError,
  defineAgent,
  InputRequiredError,
  type InputRequiredEvent,
  isValidAgentName,
} from '@agentport/core';
import { parseAbsoluteUrl } from '../absolute-url.ts';
import { AGENT_CARD_ROUTE } from '../card/agent-card.ts';
import { RemoteAgentError } from '../errors/remote-agent-error.ts';
import { a2aPartsOf } from '../store/task-view.ts';
import { causeCode, connectToCard, type RemoteConnection, reasonOf } from './remote-connection.ts';
import { RemoteTaskTranslator, remotePauseOf } from './remote-events.ts';

/** How long a best-effort cancel of a remote task may take before it is given up. */
const CANCEL_TIMEOUT_MS = 5000;

/** Options of {@link createRemoteSdkAgent}. */
export interface RemoteSdkAgentOptions {
  /**
   * Where the remote agent is: its per-agent base URL (its card is read at
   * `<url>/.well-known/agent-card.json`) or its card's own URL (one ending in `.json`).
   */
  url: string;
  /** The local agent name (default: derived from the card's name). */
  name?: string;
  /** The local description (default: the card's description). */
  description?: string;
  /** The binding to prefer when the card offers both (default: the card's order). */
  preferredTransport?: 'JSONRPC' | 'HTTP+JSON';
  /** Also talk to A2A v0.3 agents, through the SDK's v0.3 transports (default true). */
  legacyCompat?: boolean;
  /** HTTP headers sent with every call, such as `Authorization`. */
  headers?: Record<string, string>;
  /** The fetch to use (default: the global fetch). */
  fetch?: typeof fetch;
  /**
   * How long reading the remote's AgentCard may take, in milliseconds (default 30 s): a remote
   * that accepts the connection and never answers fails the creation instead of holding it for
   * minutes. Calls have no such limit (a blocking SendMessage lasts as long as its task); abort
   * their signal instead.
   */
  cardTimeoutMs?: number;
}

/** The card URL of a per-agent base URL (`<base>/.well-known/agent-card.json`) or a card URL as is. */
export function agentCardUrlOf(url: string): string {
  const parsed = parseAbsoluteUrl(url, 'Remote agent url');
  if (parsed.pathname.endsWith('.json')) return parsed.href;
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}${AGENT_CARD_ROUTE}`;
  return parsed.href;
}

/** A valid local agent name made from a card's display name (`Echo Agent` -> `echo-agent`). */
export function agentNameOf(displayName: string): string {
  const name = displayName
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return isValidAgentName(name) ? name : 'remote-agent';
}

function isTerminal(state: TaskState | undefined): boolean {
  return (
    state === TaskState.TASK_STATE_COMPLETED ||
    state === TaskState.TASK_STATE_FAILED ||
    state === TaskState.TASK_STATE_CANCELED ||
    state === TaskState.TASK_STATE_REJECTED
  );
}

/**
 * What a failed call throws: a cancellation when it was aborted, our own errors as they are, and
 * any other as a RemoteAgentError.
 */
function callFailure(
  remote: RemoteConnection,
  error: unknown,
  signal: AbortSignal | undefined,
): AgentPortError {
  if (signal?.aborted) return new CancellationError(undefined, { cause: error });
  if (AgentPortError.isInstance(error)) return error;
  return new RemoteAgentError(remote.name, reasonOf(error, causeCode), { cause: error });
}

/** Best-effort cancel of the remote task (by id, or found through its context), bounded in time. */
async function cancelRemote(
  remote: RemoteConnection,
  taskId: string | undefined,
  contextId: string,
): Promise<void> {
  const { client, serviceParameters } = remote;
  const requestOptions = { serviceParameters, signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS) };
  const ids =
    taskId !== undefined
      ? [taskId]
      : (
          await client.listTasks(
            ListTasksRequest.fromJSON({ contextId, pageSize: 10 }),
            requestOptions,
          )
        ).tasks
          .filter((task) => !isTerminal(task.status?.state))
          .map((task) => task.id);
  await Promise.all(
    ids.map((id) => client.cancelTask({ id, tenant: '', metadata: undefined }, requestOptions)),
  );
}

/** Where one call's message goes: the remote context, and the remote task it answers, if any. */
interface CallTarget {
  readonly contextId: string;
  readonly taskId?: string;
}

/**
 * Where a run's message goes: to the remote task a paused run's `resumeState` names (in its
 * context), else to a new remote task in a context of its own.
 */
function targetOf(resumeState: unknown): CallTarget {
  const pause = remotePauseOf(resumeState);
  if (pause === undefined) return { contextId: globalThis.crypto.randomUUID() };
  return { contextId: pause.remoteContextId, taskId: pause.remoteTaskId };
}

/** The SendMessage request of one call: the caller's message, every part of it, to `target`. */
function newRequest(input: AgentInput, target: CallTarget): SendMessageRequest {
  const request = SendMessageRequest.fromJSON({});
  const parts = a2aPartsOf(
    typeof input === 'string' ? [{ kind: 'text', text: input }] : input.parts,
  );
  request.message = {
    messageId: globalThis.crypto.randomUUID(),
    contextId: target.contextId,
    taskId: target.taskId ?? '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return request;
}

/**
 * The agent's run: one SendStreamingMessage, its events translated as they arrive; an abort, or a
 * stream given up on before its task ended, cancels the remote task.
 */
async function* streamRemote(
  remote: RemoteConnection,
  context: AgentRunContext,
): AsyncGenerator<AgentProgressEvent, string | InputRequiredEvent, undefined> {
  const { name } = remote;
  const { signal } = context;
  const target = targetOf(context.resumeState);
  const { contextId } = target;
  const translator = new RemoteTaskTranslator(name);
  const http = new AbortController();
  const onAbort = () => {
    http.abort(signal.reason);
    cancelRemote(remote, translator.taskId, contextId).catch(() => undefined);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const events = remote.client.sendMessageStream(newRequest(context.message, target), {
      signal: http.signal,
      serviceParameters: remote.serviceParameters,
    });
    for await (const event of events) {
      const translation = translator.push(event);
      yield* translation.events;
      if (translation.output !== undefined) return translation.output;
      if (translation.pause !== undefined) return translation.pause;
    }
  } catch (error) {
    throw callFailure(remote, error, signal);
  } finally {
    signal.removeEventListener('abort', onAbort);
    // Given up on before it ended (the consumer stopped iterating, the stream broke or ended
    // early): cancel it so the remote stops working. An abort has already cancelled it.
    if (!translator.settled && !signal.aborted) {
      cancelRemote(remote, translator.taskId, contextId).catch(() => undefined);
    }
  }
  throw new AgentFailureError({
    agentName: name,
    code: 'remote_task_unfinished',
    message: `The stream of remote agent '${name}' ended before its task did`,
  });
}

/**
 * The output of a blocking SendMessage's result (a message, or a finished task); a task waiting
 * for input is the InputRequiredError an `invoke` of a pausing run rejects with.
 */
function outputOfResult(name: string, result: SendMessageResult): string {
  const translator = new RemoteTaskTranslator(name);
  const translation =
    'messageId' in result
      ? translator.push({ payload: { $case: 'message', value: result } })
      : translator.task(result);
  if (translation.output !== undefined) return translation.output;
  if (translation.pause !== undefined) throw new InputRequiredError(name, translation.pause);
  throw new AgentFailureError({
    agentName: name,
    code: 'remote_task_unfinished',
    message: `Remote agent '${name}' answered before its task finished`,
  });
}

/** The agent's `invoke`: one blocking SendMessage; an abort cancels the remote task. */
async function invokeRemote(
  remote: RemoteConnection,
  input: AgentInput,
  runOptions: AgentRunOptions = {},
): Promise<string> {
  const { signal } = runOptions;
  if (signal?.aborted) throw new CancellationError();
  const target = targetOf(runOptions.resumeState);
  const onAbort = () => {
    cancelRemote(remote, target.taskId, target.contextId).catch(() => undefined);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const result = await remote.client.sendMessage(newRequest(input, target), {
      ...(signal ? { signal } : {}),
      serviceParameters: remote.serviceParameters,
    });
    return outputOfResult(remote.name, result);
  } catch (error) {
    throw callFailure(remote, error, signal);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Creates a local agent that delegates to a remote A2A agent through the official SDK client:
 * it reads the remote AgentCard (from a per-agent base URL such as `http://host/a2a/echo`, or the
 * card's own URL) and takes its name and description; `invoke` sends one blocking SendMessage,
 * `stream` uses SendStreamingMessage and yields events as they arrive; aborting either cancels the
 * remote task, and so does a stream its consumer stops reading before the task ends.
 *
 * @example
 * const echo = await createRemoteSdkAgent({ url: 'http://localhost:8080/a2a/echo' });
 * await echo.invoke('hello'); // 'hello'
 */
export async function createRemoteSdkAgent(options: RemoteSdkAgentOptions): Promise<Agent> {
  const { card, client } = await connectToCard(agentCardUrlOf(options.url), options);
  const remote: RemoteConnection = {
    name: options.name ?? agentNameOf(card.name),
    client,
    serviceParameters: { ...options.headers },
  };
  const description = options.description ?? card.description;
  const agent = defineAgent({
    name: remote.name,
    ...(description ? { description } : {}),
    run: (_input, context) => streamRemote(remote, context),
  });
  return {
    ...agent,
    invoke: (input, runOptions) => invokeRemote(remote, input, runOptions),
  };
}
