import { abortableReader } from './abortable.ts';
import type { AgentEvent, DoneEvent, ErrorEvent, InputRequiredEvent } from './agent-event.ts';
import { AgentFailureError } from './errors/agent-failure-error.ts';
import type { AgentPortError } from './errors/agentport-error.ts';
import { InputRequiredError } from './errors/input-required-error.ts';
import { remoteTaskError } from './errors/remote-task-error.ts';
import { pacedEvents } from './internal/paced-events.ts';
import { PUSH_EVENTS, type PushedEvents } from './internal/push-events.ts';

const failures = new WeakMap<ErrorEvent, AgentPortError>();

/** Links an `error` event to the error it reports, so `invoke` can rethrow the original. */
export function rememberFailure(event: ErrorEvent, error: AgentPortError): ErrorEvent {
  failures.set(event, error);
  return event;
}

/**
 * The error an `error` event reports: the original when known; else, as a remote's report is read
 * ({@link remoteTaskError}), a 400 for the caller's input (`invalid_input`,
 * `invalid_tool_arguments`) and an AgentFailureError (500) with the event's code for anything else.
 */
export function errorFromEvent(event: ErrorEvent, agentName: string): AgentPortError {
  return (
    failures.get(event) ?? remoteTaskError({ agentName, code: event.code, message: event.message })
  );
}

/** The failure of a run whose events ended without a `done` or `error` event. */
export function endedWithoutResult(agentName: string): AgentFailureError {
  return new AgentFailureError({
    agentName,
    message: `Agent '${agentName}' ended without a result`,
  });
}

/**
 * A run's final output, checked: `done.output` must be a string, and a hand-written agent's may
 * be anything; anything else fails the run as `agent_failure`, its type in the cause.
 */
export function checkedOutput(output: unknown, agentName: string): string {
  if (typeof output === 'string') return output;
  throw new AgentFailureError({
    agentName,
    cause: new TypeError(`Agent '${agentName}' ended with a ${typeof output} output, not a string`),
  });
}

/** The event that ends a run. */
export type TerminalEvent = DoneEvent | ErrorEvent | InputRequiredEvent;

/** Whether an event ends its run: `done`, `error` or `input-required`. */
export function isTerminalEvent(event: AgentEvent): event is TerminalEvent {
  const { type } = event;
  return type === 'done' || type === 'error' || type === 'input-required';
}

/** What {@link terminalEventOf} calls with each progress event (a throw ends the read). */
export type ProgressHandler = (event: AgentEvent) => void;

/**
 * Reads an agent's events up to its `done` or `error` one and resolves with it (undefined when the
 * stream ended without one), handing every other event to `onProgress`. A `defineAgent` stream
 * is pushed (see run-stream.ts) rather than iterated: no promise per event; it ends itself with a
 * `canceled` error event when its signal aborts. Any other stream is iterated, giving the event
 * loop a turn every few milliseconds ({@link pacedEvents}); with `signal`, the read rejects with a
 * CancellationError as soon as it aborts, without waiting for the stream.
 */
export function terminalEventOf(
  events: AsyncIterable<AgentEvent>,
  onProgress?: ProgressHandler,
  signal?: AbortSignal,
): Promise<TerminalEvent | undefined> {
  return readToEnd(events, onProgress, signal, asIs, undefined);
}

function asIs(event: TerminalEvent | undefined): TerminalEvent | undefined {
  return event;
}

function outputFrom(event: TerminalEvent | undefined, agentName: string): string {
  if (event === undefined) throw endedWithoutResult(agentName);
  if (event.type === 'error') throw errorFromEvent(event, agentName);
  if (event.type === 'input-required') throw new InputRequiredError(agentName, event);
  return checkedOutput(event.output, agentName);
}

/**
 * {@link terminalEventOf} with what it resolves with mapped by `finish(event, context)` (whose
 * throw rejects), without a promise or a closure more on a pushed stream.
 */
function readToEnd<T, C>(
  events: AsyncIterable<AgentEvent>,
  onProgress: ProgressHandler | undefined,
  signal: AbortSignal | undefined,
  finish: (event: TerminalEvent | undefined, context: C) => T,
  context: C,
): Promise<T> {
  const push = (events as PushedEvents)[PUSH_EVENTS];
  if (push === undefined) {
    const paced = pacedEvents(events);
    const read =
      signal === undefined
        ? iteratedTerminalEvent(paced, onProgress)
        : abortableTerminalEvent(paced, signal, onProgress);
    return read.then((event) => finish(event, context));
  }
  return new Promise((resolve, reject) => {
    let ended = false;
    push.call(events, {
      next(event) {
        const terminal = isTerminalEvent(event);
        try {
          if (terminal) resolve(finish(event, context));
          else onProgress?.(event);
        } catch (error) {
          reject(error);
          ended = true;
          return false;
        }
        ended = terminal;
        return !terminal;
      },
      error(error) {
        ended = true;
        reject(error);
      },
      complete() {
        if (ended) return;
        ended = true;
        try {
          resolve(finish(undefined, context));
        } catch (error) {
          reject(error);
        }
      },
    });
  });
}

async function iteratedTerminalEvent(
  events: AsyncIterable<AgentEvent>,
  onProgress: ProgressHandler | undefined,
): Promise<TerminalEvent | undefined> {
  for await (const event of events) {
    if (isTerminalEvent(event)) return event;
    onProgress?.(event);
  }
  return undefined;
}

async function abortableTerminalEvent(
  events: AsyncIterable<AgentEvent>,
  signal: AbortSignal,
  onProgress: ProgressHandler | undefined,
): Promise<TerminalEvent | undefined> {
  const iterator = events[Symbol.asyncIterator]();
  const reader = abortableReader(iterator, signal);
  try {
    for (;;) {
      const step = await reader.next();
      if (step.done === true) return undefined;
      const event = step.value;
      if (isTerminalEvent(event)) return event;
      onProgress?.(event);
    }
  } finally {
    reader.dispose();
    // Never wait for a stream that ignores its signal: its late events are discarded.
    void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

/**
 * Consumes an agent's event stream and resolves with its final output, or rejects with the error
 * its `error` event reports; this is how `invoke` is derived from `stream`.
 */
export function outputOf(events: AsyncIterable<AgentEvent>, agentName: string): Promise<string> {
  return readToEnd(events, undefined, undefined, outputFrom, agentName);
}
