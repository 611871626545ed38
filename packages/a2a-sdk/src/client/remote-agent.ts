import {
  type AgentCard,
  ListTasksRequest,
  Role,
  SendMessageRequest,
  type SendMessageResult,
  TaskState,
} from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
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
import { RemoteAgentCardError } from '../errors/remote-agent-card-error.ts';
import { RemoteAgentError } from '../errors/remote-agent-error.ts';
import { a2aPartsOf } from '../store/task-view.ts';
import { RemoteTaskTranslator, remotePauseOf } from './remote-events.ts';
import { AppendKeepingRestTransportFactory } from './rest-transport-factory.ts';

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

/** The default of {@link RemoteSdkAgentOptions.cardTimeoutMs}. */
const CARD_TIMEOUT_MS = 30_000;

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

/** The most of a remote's error that callers are shown (the whole stays in the error's cause). */
const MAX_REASON_LENGTH = 300;

/** What a `fetch` failure's cause says: its whole message (for the operator, at start). */
const causeMessage = (cause: Error): string => cause.message;

/**
 * What a `fetch` failure's cause says to a call's callers: its code (`ECONNREFUSED`, `ENOTFOUND`)
 * rather than its message, which names the remote's address or host name (a gateway serving the
 * agent would hand it to anyone who calls, as the a2a-http remote agent does not).
 */
const causeCode = (cause: Error): string => {
  const code = (cause as { code?: unknown }).code;
  return typeof code === 'string' ? code : cause.message;
};

/**
 * Why a call failed, as callers may be told it: the SDK's transports end their HTTP errors with
 * the remote's whole answer body (`... Status: 502 Bad Gateway. Response: <html>...`), which may
 * name its internals and be of any size; that part is left out, control characters become
 * spaces, and at most 300 characters are kept. The error itself is the `cause`, for the log.
 */
function reasonOf(error: unknown, describeCause = causeMessage): string {
  let message = error instanceof Error ? error.message : String(error);
  // `fetch` says only "fetch failed"; what failed (a refused connection, a redirect) is its cause.
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  if (message === 'fetch failed' && cause instanceof Error) message += ` (${describeCause(cause)})`;
  const body = message.indexOf('. Response: ');
  const head = body === -1 ? message : message.slice(0, body);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
  const flat = head.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > MAX_REASON_LENGTH ? `${flat.slice(0, MAX_REASON_LENGTH)}...` : flat;
}

function isTerminal(state: TaskState | undefined): boolean {
  return (
    state === TaskState.TASK_STATE_COMPLETED ||
    state === TaskState.TASK_STATE_FAILED ||
    state === TaskState.TASK_STATE_CANCELED ||
    state === TaskState.TASK_STATE_REJECTED
  );
}

/** A fetch whose every call (the answer and its body) must end within `timeoutMs`. */
function fetchWithin(fetchImpl: typeof fetch, timeoutMs: number): typeof fetch {
  return (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    return fetchImpl(input, { ...init, signal });
  };
}

/**
 * A fetch that never follows a redirect (it fails instead): a remote's redirect would send the
 * message, and headers such as `X-API-Key` (which `fetch` keeps across origins, unlike
 * `Authorization`), to wherever it points. The a2a-http remote agent refuses redirects alike.
 */
function withoutRedirects(fetchImpl: typeof fetch | undefined): typeof fetch {
  return (input, init) => (fetchImpl ?? globalThis.fetch)(input, { ...init, redirect: 'error' });
}

async function loadCard(
  cardUrl: string,
  resolver: DefaultAgentCardResolver,
  timeoutMs: number,
): Promise<AgentCard> {
  let card: AgentCard;
  try {
    card = await resolver.resolve(cardUrl, '');
  } catch (error) {
    const reason =
      (error as Error | undefined)?.name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms`
        : reasonOf(error);
    throw new RemoteAgentCardError(cardUrl, reason, { cause: error });
  }
  if (typeof card?.name !== 'string' || !Array.isArray(card.supportedInterfaces)) {
    throw new RemoteAgentCardError(cardUrl, 'the document is not an A2A AgentCard');
  }
  // An interface at a relative or non-HTTP URL cannot be called: refused now, not at every call.
  const callable = card.supportedInterfaces.filter((entry) => isHttpUrl(entry?.url));
  if (callable.length === 0) {
    throw new RemoteAgentCardError(
      cardUrl,
      'the card names no interface at an absolute http(s) URL',
    );
  }
  return callable.length === card.supportedInterfaces.length
    ? card
    : { ...card, supportedInterfaces: callable };
}

function isHttpUrl(url: unknown): boolean {
  const protocol = typeof url === 'string' ? URL.parse(url)?.protocol : undefined;
  return protocol === 'http:' || protocol === 'https:';
}

/** A connected remote: the SDK client and what every call to it carries. */
interface RemoteConnection {
  /** The local agent name (what its errors name). */
  readonly name: string;
  readonly client: Client;
  /** The headers sent with every call. */
  readonly serviceParameters: Record<string, string>;
}

/**
 * Reads the remote's card (within `cardTimeoutMs`) and builds the SDK client for it, over the
 * card's preferred binding (or `preferredTransport`), redirects refused.
 */
async function connectToCard(
  cardUrl: string,
  options: RemoteSdkAgentOptions,
): Promise<{ card: AgentCard; client: Client }> {
  const legacyCompat = { enabled: options.legacyCompat !== false };
  const fetchImpl = withoutRedirects(options.fetch);
  const cardTimeoutMs = options.cardTimeoutMs ?? CARD_TIMEOUT_MS;
  const resolver = new DefaultAgentCardResolver({
    legacyCompat,
    fetchImpl: fetchWithin(fetchImpl, cardTimeoutMs),
  });
  const card = await loadCard(cardUrl, resolver, cardTimeoutMs);
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ legacyCompat, fetchImpl }),
      // The SDK's v0.3 HTTP+JSON transport loses `append` on streamed artifact updates.
      new AppendKeepingRestTransportFactory({ legacyCompat, fetchImpl }),
    ],
    ...(options.preferredTransport ? { preferredTransports: [options.preferredTransport] } : {}),
  });
  try {
    return { card, client: await factory.createFromAgentCard(card) };
  } catch (error) {
    throw new RemoteAgentCardError(cardUrl, reasonOf(error), { cause: error });
  }
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
