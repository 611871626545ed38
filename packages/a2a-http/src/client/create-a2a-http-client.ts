import {
  CancellationError,
  InvalidInputError,
  isSettledStatus,
  type Part,
  type TaskStatus,
} from '@agentport/core';
import { type AgentCard, agentCardSchema } from '../wire/agent-card.ts';
import {
  type CreateTaskRequest,
  MAX_WAIT_SECONDS,
  taskPageSchema,
  taskResponseSchema,
} from '../wire/task-schemas.ts';
import type { A2ATask, A2ATaskPage } from '../wire/wire-task.ts';
import { callJson, type HttpTransport, normalizeBaseUrl } from './http-transport.ts';
import { fetchRequest, nodeHttpRequest } from './node-http-request.ts';
import { watchTask } from './watch-task.ts';

/** Options of {@link createA2AHttpClient}. */
export interface A2AHttpClientOptions {
  /** The server's base URL, or its card URL (`.../.well-known/agent.json`), http or https. */
  baseUrl: string | URL;
  /** The fetch to send every request with (default: `node:http(s)` with keep-alive agents). */
  fetch?: typeof globalThis.fetch;
  /** Headers sent with every request, such as `authorization`. */
  headers?: Record<string, string>;
  /** How long one request may take, in milliseconds (default 30 s); a long-poll adds its wait. */
  timeoutMs?: number;
}

/** Options of one client call. */
export interface A2AHttpRequestOptions {
  /** Aborting it abandons the call, which rejects with a CancellationError. */
  signal?: AbortSignal;
}

/** Options of {@link A2AHttpClient.getTask}, {@link A2AHttpClient.createTask} and {@link A2AHttpClient.sendMessage}. */
export interface GetTaskOptions extends A2AHttpRequestOptions {
  /**
   * Long-poll: let the server hold the answer until the task is terminal or paused for input, up
   * to this long (at most 25 s, `MAX_WAIT_SECONDS`).
   */
  waitSeconds?: number;
}

/** Options of {@link A2AHttpClient.waitForTask}. */
export interface WaitForTaskOptions extends A2AHttpRequestOptions {
  /** Give up after this long and resolve with the task as it is (default: wait until terminal or paused). */
  timeoutMs?: number;
}

/** Options of {@link A2AHttpClient.watchTask}. */
export interface WatchTaskOptions extends A2AHttpRequestOptions {
  /**
   * How long the stream may send nothing, not even a heartbeat comment, before the watch fails
   * with `remote_timeout`, in milliseconds (default 60 s: four of this project's 15 s heartbeats);
   * `Infinity` for no limit.
   */
  idleTimeoutMs?: number;
}

/** Options of {@link A2AHttpClient.listTasks}. */
export interface ListTasksOptions extends A2AHttpRequestOptions {
  limit?: number;
  cursor?: string;
  status?: TaskStatus;
}

/** A client of one hand-rolled A2A server. */
export interface A2AHttpClient {
  /** The normalized base URL the routes are requested under. */
  readonly baseUrl: string;
  /** Fetches and validates the Agent Card. */
  getCard(options?: A2AHttpRequestOptions): Promise<AgentCard>;
  /**
   * Creates a task (`input` a string or a list of parts, `contextId` the conversation it joins:
   * a task of it waiting for input is continued instead); resolves with it as created (usually
   * `submitted`), or, with `waitSeconds`, once it is terminal or paused, or the wait runs out.
   * Aborting a waiting create cancels the task.
   */
  createTask(request: CreateTaskRequest, options?: GetTaskOptions): Promise<A2ATask>;
  /**
   * Sends the next message to a task waiting for input (`input-required`), which runs again;
   * resolves with it (`working`), or, with `waitSeconds`, once it is terminal or paused again, or
   * the wait runs out. A RemoteHttpError 409 `task_not_waiting` when it is not waiting.
   */
  sendMessage(id: string, input: string | Part[], options?: GetTaskOptions): Promise<A2ATask>;
  /** The task as it is now, or once terminal when `waitSeconds` is given. */
  getTask(id: string, options?: GetTaskOptions): Promise<A2ATask>;
  /** Cancels a task; resolves with it canceled (a RemoteHttpError 409 when already finished). */
  cancelTask(id: string, options?: A2AHttpRequestOptions): Promise<A2ATask>;
  /**
   * Waits until the task is terminal or paused for input: long-polls, with backoff against servers
   * that answer early.
   */
  waitForTask(id: string, options?: WaitForTaskOptions): Promise<A2ATask>;
  /** One page of the remote's tasks, newest first. */
  listTasks(options?: ListTasksOptions): Promise<A2ATaskPage>;
  /** The task now and after every change, from the events stream, until terminal or paused. */
  watchTask(id: string, options?: WatchTaskOptions): AsyncIterable<A2ATask>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** How long an events stream may stay silent: four of the 15 s heartbeats this project's servers send. */
const DEFAULT_WATCH_IDLE_MS = 60_000;
/** The longest delay a Node timer takes (about 24.8 days); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The idle limit of a watch from `idleTimeoutMs`: the default when not given, undefined (no
 * limit) for `Infinity` or more than a timer can wait, or an InvalidInputError when it is not a
 * positive number.
 */
export function watchIdleMs(idleTimeoutMs: number | undefined): number | undefined {
  if (idleTimeoutMs === undefined) return DEFAULT_WATCH_IDLE_MS;
  if (typeof idleTimeoutMs !== 'number' || !(idleTimeoutMs > 0)) {
    throw new InvalidInputError(
      'idleTimeoutMs must be a positive number of milliseconds (Infinity for no limit)',
      { field: 'idleTimeoutMs' },
    );
  }
  return idleTimeoutMs > MAX_TIMER_MS ? undefined : idleTimeoutMs;
}
/** One long-poll request waits at most this long (the server's cap); `waitForTask` chains them. */
const LONG_POLL_SECONDS = MAX_WAIT_SECONDS;
const FIRST_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 2_000;

/**
 * The `wait` query value in seconds, clamped to what a server accepts and rounded to the
 * millisecond, so it prints as a plain decimal (`String(1e-7)` is `1e-7`, which servers refuse).
 */
function waitOf(options: GetTaskOptions): number | undefined {
  if (options.waitSeconds === undefined) return undefined;
  const seconds = Math.min(Math.max(options.waitSeconds, 0), MAX_WAIT_SECONDS);
  return Math.round(seconds * 1000) / 1000;
}

function taskPath(id: string, suffix = ''): string {
  return `/tasks/${encodeURIComponent(id)}${suffix}`;
}

function pause(ms: number, signal: AbortSignal | undefined, operation: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CancellationError(`${operation} was canceled`, { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The card, fetched and validated. */
function requestCard(
  transport: HttpTransport,
  options: A2AHttpRequestOptions = {},
): Promise<AgentCard> {
  return callJson(
    transport,
    {
      operation: 'getCard',
      method: 'GET',
      path: '/.well-known/agent.json',
      signal: options.signal,
    },
    agentCardSchema,
  );
}

/** Creates a task (`POST /tasks`), long-polled when `waitSeconds` is given. */
async function postTask(
  transport: HttpTransport,
  request: CreateTaskRequest,
  options: GetTaskOptions = {},
): Promise<A2ATask> {
  const wait = waitOf(options);
  const { task } = await callJson(
    transport,
    {
      operation: 'createTask',
      method: 'POST',
      path: '/tasks',
      query: { wait: wait === undefined ? undefined : String(wait) },
      body: request,
      signal: options.signal,
      timeoutMs: transport.timeoutMs + (wait ?? 0) * 1000,
    },
    taskResponseSchema,
  );
  return task;
}

/** One task (`GET /tasks/{id}`), long-polled when `waitSeconds` is given; `operation` names the call in errors. */
async function requestTask(
  transport: HttpTransport,
  id: string,
  options: GetTaskOptions = {},
  operation = 'getTask',
): Promise<A2ATask> {
  const wait = waitOf(options);
  const { task } = await callJson(
    transport,
    {
      operation,
      method: 'GET',
      path: taskPath(id),
      query: { wait: wait === undefined ? undefined : String(wait) },
      signal: options.signal,
      taskId: id,
      timeoutMs: transport.timeoutMs + (wait ?? 0) * 1000,
    },
    taskResponseSchema,
  );
  return task;
}

/** The next message of a paused task (`POST /tasks/{id}/messages`), long-polled when `waitSeconds` is given. */
async function postMessage(
  transport: HttpTransport,
  id: string,
  input: string | Part[],
  options: GetTaskOptions = {},
): Promise<A2ATask> {
  const wait = waitOf(options);
  const { task } = await callJson(
    transport,
    {
      operation: 'sendMessage',
      method: 'POST',
      path: taskPath(id, '/messages'),
      query: { wait: wait === undefined ? undefined : String(wait) },
      body: { input },
      signal: options.signal,
      taskId: id,
      timeoutMs: transport.timeoutMs + (wait ?? 0) * 1000,
    },
    taskResponseSchema,
  );
  return task;
}

/** Cancels a task (`POST /tasks/{id}/cancel`). */
async function postCancel(
  transport: HttpTransport,
  id: string,
  options: A2AHttpRequestOptions = {},
): Promise<A2ATask> {
  const { task } = await callJson(
    transport,
    {
      operation: 'cancelTask',
      method: 'POST',
      path: taskPath(id, '/cancel'),
      signal: options.signal,
      taskId: id,
    },
    taskResponseSchema,
  );
  return task;
}

/**
 * Chains long-polls until the task is terminal or paused for input, or the deadline passes,
 * backing off from servers that answer early.
 */
async function pollUntilTerminal(
  transport: HttpTransport,
  id: string,
  options: WaitForTaskOptions = {},
): Promise<A2ATask> {
  const { signal, timeoutMs } = options;
  const deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
  let backoffMs = FIRST_BACKOFF_MS;
  while (true) {
    const remainingMs = deadline - Date.now();
    const waitSeconds = Math.max(0, Math.min(LONG_POLL_SECONDS, remainingMs / 1000));
    const started = performance.now();
    const task = await requestTask(transport, id, { signal, waitSeconds }, 'waitForTask');
    if (isSettledStatus(task.status) || Date.now() >= deadline) return task;
    // A server that ignores `wait` answers at once: poll it with backoff instead.
    if (performance.now() - started < (waitSeconds * 1000) / 2) {
      await pause(Math.min(backoffMs, Math.max(0, deadline - Date.now())), signal, 'waitForTask');
      backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
    } else {
      backoffMs = FIRST_BACKOFF_MS;
    }
  }
}

/** One page of the remote's tasks (`GET /tasks`). */
function requestTaskPage(
  transport: HttpTransport,
  options: ListTasksOptions = {},
): Promise<A2ATaskPage> {
  return callJson(
    transport,
    {
      operation: 'listTasks',
      method: 'GET',
      path: '/tasks',
      query: {
        limit: options.limit === undefined ? undefined : String(options.limit),
        cursor: options.cursor,
        status: options.status,
      },
      signal: options.signal,
    },
    taskPageSchema,
  );
}

/**
 * Creates a client of a hand-rolled A2A server from its base URL (or its card URL).
 *
 * @example
 * const client = createA2AHttpClient({ baseUrl: 'http://127.0.0.1:8080/agents/echo' });
 * const task = await client.createTask({ input: 'hello' });
 * const done = await client.waitForTask(task.id); // done.output === 'hello'
 */
export function createA2AHttpClient(options: A2AHttpClientOptions): A2AHttpClient {
  const transport: HttpTransport = {
    baseUrl: normalizeBaseUrl(options.baseUrl),
    request: options.fetch === undefined ? nodeHttpRequest : fetchRequest(options.fetch),
    headers: { ...options.headers },
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  return {
    baseUrl: transport.baseUrl,
    getCard: (callOptions) => requestCard(transport, callOptions),
    createTask: (request, createOptions) => postTask(transport, request, createOptions),
    sendMessage: (id, input, sendOptions) => postMessage(transport, id, input, sendOptions),
    getTask: (id, getOptions) => requestTask(transport, id, getOptions),
    cancelTask: (id, callOptions) => postCancel(transport, id, callOptions),
    waitForTask: (id, waitOptions) => pollUntilTerminal(transport, id, waitOptions),
    listTasks: (listOptions) => requestTaskPage(transport, listOptions),
    watchTask: (id, callOptions = {}) =>
      watchTask(transport, id, callOptions.signal, watchIdleMs(callOptions.idleTimeoutMs)),
  };
}
