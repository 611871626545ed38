import { type Agent, RemoteUnavailableError } from '@agentport/core';
import type { Logger } from 'pino';
import { shownUrl } from './remote-call.ts';

/** A remote agent that could not be reached at start, which the gateway keeps trying. */
export interface UnavailableRemote {
  /** The name it is served under (its configured one, else one derived from its URL). */
  readonly name: string;
  /** Its configured URL (shown without its query). */
  readonly url: string;
  /** When it was first found unavailable. */
  readonly since: Date;
  /** Why the last try failed. */
  readonly lastError: string;
  /** Whether `name` was derived from the URL, no name being configured (logged as a warning). */
  readonly nameFromUrl?: boolean;
  /** One try: resolves with the agent, named `name`, once its card could be read. */
  connect(signal: AbortSignal): Promise<Agent>;
}

/** How the gateway retries an unavailable remote: exponential backoff with jitter. */
export interface RemoteRetryOptions {
  /** The delay before the first retry, in ms (default 1,000); each later one doubles it. */
  initialDelayMs?: number;
  /** The longest delay between two tries, in ms (default 60,000). */
  maxDelayMs?: number;
}

/** How `/readyz` lists a remote not available yet. */
export interface UnavailableRemoteStatus {
  name: string;
  /** Its URL without query. */
  url: string;
  /** When it was first found unavailable (ISO 8601). */
  since: string;
  /** Why the last try failed. */
  lastError: string;
}

/** The remotes not available yet, retried in the background. */
export interface RemoteRetries {
  /** The error a request for `name` gets while that remote is unavailable; else undefined. */
  unavailable(name: string): RemoteUnavailableError | undefined;
  /** Every remote still unavailable, as `/readyz` lists them. */
  statuses(): UnavailableRemoteStatus[];
  /** Stops every retry, one in flight included. */
  stop(): void;
}

/** What {@link retryRemotes} does besides trying. */
export interface RetryRemotesOptions extends RemoteRetryOptions {
  logger?: Logger | undefined;
  /** Called once per remote with its agent when a try succeeds (it is no longer unavailable then). */
  onAvailable(agent: Agent): void;
  /** Draws the jitter, in [0, 1) (default Math.random). */
  random?: () => number;
}

const INITIAL_DELAY_MS = 1000;
const MAX_DELAY_MS = 60_000;

/**
 * The delay before retry number `attempt` (0 for the first): the initial delay doubled at each
 * retry up to the maximum, then between half of it and all of it (the jitter, so that gateways
 * restarted together do not all call at once).
 */
export function retryDelay(
  attempt: number,
  options: RemoteRetryOptions = {},
  random: () => number = Math.random,
): number {
  const max = options.maxDelayMs ?? MAX_DELAY_MS;
  const full = Math.min(max, (options.initialDelayMs ?? INITIAL_DELAY_MS) * 2 ** attempt);
  return Math.round(full / 2 + (random() * full) / 2);
}

/** A message as logged: URLs in it without their query, which may carry a token. */
function withoutQueries(message: string): string {
  return message.replace(/(https?:\/\/[^\s?#]*)[?#][^\s)'"]*/g, '$1');
}

/** A failure as logged and listed: its message, URLs without their query. */
export function describeFailure(error: unknown): string {
  return withoutQueries(error instanceof Error ? error.message : String(error));
}

interface Retried {
  remote: UnavailableRemote;
  lastError: string;
  attempts: number;
  /** When the next try starts (ms since the epoch); undefined while one is in flight. */
  nextAt: number | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** What the retries of one {@link retryRemotes} share. */
interface RetryState {
  readonly options: RetryRemotesOptions;
  readonly random: () => number;
  /** Aborted by `stop`: ends the try in flight and every later one. */
  readonly stopping: AbortController;
  /** The remotes still unavailable, by name. */
  readonly retried: Map<string, Retried>;
}

/** Sets the timer of the entry's next try, after its backoff. */
function schedule(state: RetryState, entry: Retried): void {
  const delay = retryDelay(entry.attempts, state.options, state.random);
  entry.nextAt = Date.now() + delay;
  entry.timer = setTimeout(() => void attempt(state, entry), delay);
  // The server keeps the process alive; a retry alone does not.
  entry.timer.unref?.();
}

/** A failed try: schedules the next one and logs it at warn. */
function failed(state: RetryState, entry: Retried, error: unknown): void {
  const { remote } = entry;
  entry.lastError = describeFailure(error);
  schedule(state, entry);
  state.options.logger?.warn(
    {
      agent: remote.name,
      url: shownUrl(remote.url),
      attempts: entry.attempts,
      retryInMs: (entry.nextAt ?? Date.now()) - Date.now(),
      error: entry.lastError,
    },
    'remote agent still unavailable',
  );
}

/** One try: on success hands the agent to `onAvailable`, else schedules the next. */
async function attempt(state: RetryState, entry: Retried): Promise<void> {
  const { remote } = entry;
  const { logger, onAvailable } = state.options;
  const { signal } = state.stopping;
  entry.nextAt = undefined;
  entry.timer = undefined;
  entry.attempts += 1;
  let agent: Agent;
  try {
    agent = await remote.connect(signal);
  } catch (error) {
    if (!signal.aborted) failed(state, entry, error);
    return;
  }
  if (signal.aborted) return;
  // No longer unavailable as it is handed over: what `onAvailable` composes serves it.
  state.retried.delete(remote.name);
  try {
    onAvailable(agent);
  } catch (error) {
    // Not something a retry mends: the agent stays unavailable, and the log says why.
    state.retried.set(remote.name, entry);
    entry.lastError = describeFailure(error);
    logger?.error({ agent: remote.name, err: error }, 'remote agent cannot be served');
    return;
  }
  logger?.info(
    { agent: remote.name, url: shownUrl(remote.url), attempts: entry.attempts },
    'remote agent available',
  );
}

/** Lists a remote as unavailable, logs so, and schedules its first retry. */
function startRetrying(state: RetryState, remote: UnavailableRemote): void {
  const { logger } = state.options;
  const entry: Retried = {
    remote,
    lastError: withoutQueries(remote.lastError),
    attempts: 0,
    nextAt: undefined,
    timer: undefined,
  };
  state.retried.set(remote.name, entry);
  const url = shownUrl(remote.url);
  if (remote.nameFromUrl === true) {
    logger?.warn(
      { agent: remote.name, url },
      `remote agent has no name: served as '${remote.name}' (from its URL) even once its card is read; give it a name in the config`,
    );
  }
  logger?.warn(
    { agent: remote.name, url, error: entry.lastError },
    'remote agent unavailable at start: answering 503 remote_unavailable, retrying in the background',
  );
  schedule(state, entry);
}

/** The error a request for a remote still retried gets, with when to try again (at least 1 s). */
function unavailableError(name: string, entry: Retried): RemoteUnavailableError {
  const seconds =
    entry.nextAt === undefined ? 1 : Math.max(1, Math.ceil((entry.nextAt - Date.now()) / 1000));
  return new RemoteUnavailableError(name, { retryAfterSeconds: seconds });
}

/**
 * Retries each remote in the background until its card can be read, then hands its agent to
 * `onAvailable`; logs each failure at warn and the success at info (URLs without query).
 */
export function retryRemotes(
  remotes: readonly UnavailableRemote[],
  options: RetryRemotesOptions,
): RemoteRetries {
  const state: RetryState = {
    options,
    random: options.random ?? Math.random,
    stopping: new AbortController(),
    retried: new Map(),
  };
  for (const remote of remotes) startRetrying(state, remote);
  return {
    unavailable(name) {
      const entry = state.retried.get(name);
      return entry === undefined ? undefined : unavailableError(name, entry);
    },
    statuses: () =>
      [...state.retried.values()].map(({ remote, lastError }) => ({
        name: remote.name,
        url: shownUrl(remote.url),
        since: remote.since.toISOString(),
        lastError,
      })),
    stop() {
      state.stopping.abort();
      for (const entry of state.retried.values()) clearTimeout(entry.timer);
    },
  };
}
