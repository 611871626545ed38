import type { AgentInput, AgentRunOptions } from './agent.ts';
import type { AgentEvent } from './agent-event.ts';
import { rememberFailure } from './agent-output.ts';
import type { AgentProgressEvent } from './define-agent.ts';
import { AgentFailureError } from './errors/agent-failure-error.ts';
import type { AgentPortError } from './errors/agentport-error.ts';
import { CancellationError } from './errors/cancellation-error.ts';
import { toAgentFailure } from './errors/to-agent-failure.ts';
import { isInputRequired } from './input-required.ts';
import { LazyAbortListener } from './internal/lazy-abort-listener.ts';
import { type AgentEventObserver, PUSH_EVENTS } from './internal/push-events.ts';
import { onNextTurn, RunPace } from './internal/run-pace.ts';
import { textOf } from './message.ts';
import { progressEventFault } from './progress-event-fault.ts';
import { type Definition, handoffDepthOf, RunContext } from './run-context.ts';

// One run of a `defineAgent` agent: its event stream (see define-agent.ts; its context is in run-context.ts).

const neverAborted = new AbortController().signal;

function failureOf(error: unknown, agentName: string, signal: AbortSignal): AgentPortError {
  if (signal.aborted) return new CancellationError(undefined, { cause: error });
  return toAgentFailure(error, agentName);
}

const NOT_STARTED = 0;
const READY = 1;
const PULLING = 2;
const ENDING = 3;
const FINISHED = 4;

function finished(): Promise<IteratorResult<AgentEvent>> {
  return Promise.resolve({ done: true, value: undefined });
}

/**
 * The event stream of one run: the run's events, then `done` (or `error`, at once when the signal
 * aborts, even while the run is busy). Written out rather than as an async generator over an
 * abortable reader: an open stream then keeps this object and one pending step, not two
 * suspended frames and a promise wrapper per step.
 */
export class RunStream implements AsyncIterableIterator<AgentEvent> {
  readonly #definition: Definition;
  readonly #input: AgentInput;
  readonly #signal: AbortSignal;
  readonly #options: AgentRunOptions;
  readonly #depth: number;
  #iterator: AsyncGenerator<AgentProgressEvent, unknown, undefined> | undefined;
  #phase = NOT_STARTED;
  /** A step was asked of the run and has not come: closing then does not wait for the run. */
  #runPending = false;
  #text = '';
  #resolve: ((step: IteratorResult<AgentEvent>) => void) | undefined;
  #pulling: Promise<IteratorResult<AgentEvent>> | undefined;
  /** Set when the stream is pushed rather than iterated. */
  #observer: AgentEventObserver | undefined;
  // Bound once per stream (a bound function is smaller than a closure and its context, and
  // smaller than the wrapper an EventTarget makes around a listener object).
  readonly #onStep = this.#step.bind(this);
  readonly #onError = this.#error.bind(this);
  #abortListener: LazyAbortListener | undefined;
  readonly #pace = new RunPace();

  constructor(definition: Definition, input: AgentInput, options: AgentRunOptions) {
    this.#definition = definition;
    this.#input = input;
    this.#signal = options.signal ?? neverAborted;
    this.#options = options;
    this.#depth = handoffDepthOf(options);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<AgentEvent>> {
    if (this.#observer !== undefined) {
      return Promise.reject(new TypeError('This agent event stream is being pushed'));
    }
    switch (this.#phase) {
      case FINISHED:
        return finished();
      case ENDING:
        return this.#finish();
      case PULLING:
        // Asked again before the last step came: answer in order, as an async generator does.
        return (this.#pulling as Promise<IteratorResult<AgentEvent>>).then(() => this.next());
      case NOT_STARTED:
        try {
          this.#start();
        } catch (error) {
          this.#phase = FINISHED;
          return Promise.reject(error);
        }
    }
    // Pending from here on, as far as closing goes, even when the signal has already aborted.
    this.#runPending = true;
    if (this.#signal.aborted) return Promise.resolve(this.#fail(new CancellationError()));
    const step = new Promise<IteratorResult<AgentEvent>>((resolve) => {
      this.#resolve = resolve;
    });
    this.#pulling = step;
    this.#request();
    return step;
  }

  /** Pushes every event to `observer` instead of being iterated (see {@link PUSH_EVENTS}). */
  [PUSH_EVENTS](observer: AgentEventObserver): void {
    if (this.#phase !== NOT_STARTED || this.#observer !== undefined) {
      throw new TypeError('This agent event stream is already being read');
    }
    this.#observer = observer;
    try {
      this.#start();
    } catch (error) {
      this.#phase = FINISHED;
      observer.error(error);
      return;
    }
    this.#advance();
  }

  /** Push mode: asks the run for its next event, or ends at once on an aborted signal. */
  #advance(): void {
    this.#runPending = true;
    if (this.#signal.aborted) this.#deliver(this.#fail(new CancellationError()));
    else this.#request();
  }

  #request(): void {
    this.#phase = PULLING;
    if (this.#pace.spend()) {
      // Busy for a while without a turn of the event loop: the next step waits for one.
      onNextTurn(RunStream.#afterTurn, this);
      return;
    }
    this.#pull();
  }

  /** The turn a busy run gave the event loop has come: asks for the step, unless it has ended. */
  static #afterTurn(stream: RunStream): void {
    stream.#pace.rest();
    if (stream.#phase === PULLING) stream.#pull();
  }

  #pull(): void {
    try {
      (this.#iterator as AsyncGenerator<AgentProgressEvent>)
        .next()
        .then(this.#onStep, this.#onError);
    } catch (error) {
      this.#onError(error);
    }
  }

  return(): Promise<IteratorResult<AgentEvent>> {
    if (this.#observer !== undefined) {
      return Promise.reject(new TypeError('This agent event stream is being pushed'));
    }
    switch (this.#phase) {
      case NOT_STARTED:
        // Like a generator closed before it started: the run is never called.
        this.#phase = FINISHED;
        return finished();
      case FINISHED:
        return finished();
      case PULLING:
        return (this.#pulling as Promise<IteratorResult<AgentEvent>>).then(() => this.return());
      default:
        return this.#finish();
    }
  }

  /** The signal aborted: a pending step ends the stream with a `canceled` error at once. */
  #abort(): void {
    if (this.#phase === PULLING) this.#settle(this.#fail(new CancellationError()));
  }

  #start(): void {
    const definition = this.#definition;
    const input = this.#input;
    const text = typeof input === 'string' ? input : textOf(input.parts);
    const context = new RunContext(definition, this.#signal, input, this.#options, this.#depth);
    this.#iterator = definition.run(text, context);
    if (this.#signal !== neverAborted) {
      // Bound here: a run without a signal needs no abort callback at all.
      this.#abortListener = new LazyAbortListener(this.#signal, this.#abort.bind(this));
    }
  }

  #step(step: IteratorResult<AgentProgressEvent, unknown>): void {
    if (this.#phase !== PULLING) return;
    this.#runPending = false;
    if (step.done === true) {
      this.#phase = ENDING;
      // The run has returned: nothing is left to close.
      this.#iterator = undefined;
      if (isInputRequired(step.value)) {
        this.#settle({ done: false, value: step.value });
        return;
      }
      const output = typeof step.value === 'string' ? step.value : this.#text;
      this.#settle({ done: false, value: { type: 'done', output } });
      return;
    }
    const fault = progressEventFault(step.value);
    if (fault !== undefined) {
      // Failed where it was yielded, the same on every surface: a delta that is not a string made
      // the output "undefined", which the agent never produced. The run is closed as it ends.
      const { name } = this.#definition;
      const cause = new TypeError(`Agent '${name}' yielded ${fault}`);
      this.#settle(this.#fail(new AgentFailureError({ agentName: name, cause })));
      return;
    }
    if (step.value.type === 'text-delta') this.#text += step.value.delta;
    this.#phase = READY;
    this.#settle({ done: false, value: step.value });
  }

  #error(error: unknown): void {
    if (this.#phase !== PULLING) return;
    this.#runPending = false;
    // The run has thrown: nothing is left to close.
    this.#iterator = undefined;
    this.#settle(this.#fail(error));
  }

  #settle(step: IteratorResult<AgentEvent>): void {
    if (this.#observer !== undefined) {
      this.#deliver(step);
      return;
    }
    const resolve = this.#resolve;
    this.#resolve = undefined;
    this.#pulling = undefined;
    resolve?.(step);
  }

  /** Push mode: hands one event over, then pulls the next or ends. */
  #deliver(step: IteratorResult<AgentEvent>): void {
    const observer = this.#observer as AgentEventObserver;
    const more = !step.done && observer.next(step.value);
    if (more && this.#phase === READY) {
      this.#advance();
      return;
    }
    const closing = this.#close();
    if (closing === undefined) {
      observer.complete();
      return;
    }
    const complete = () => observer.complete();
    closing.then(complete, complete);
  }

  /** The final `error` event for a failure; the stream ends after it. */
  #fail(error: unknown): IteratorResult<AgentEvent> {
    this.#phase = ENDING;
    const failure = failureOf(error, this.#definition.name, this.#signal);
    const event = rememberFailure(
      { type: 'error', code: failure.code, message: failure.message },
      failure,
    );
    return { done: false, value: event };
  }

  /**
   * Ends the stream and closes its run (its finally blocks run): resolves once they have run, or
   * is undefined when there is nothing to wait for (the run ended by itself, or is busy with a
   * step and must not be waited on: a run may ignore its signal).
   */
  #close(): Promise<unknown> | undefined {
    this.#phase = FINISHED;
    this.#abortListener?.stop();
    const iterator = this.#iterator;
    if (iterator === undefined) return undefined;
    this.#iterator = undefined;
    let closing: Promise<unknown> | undefined;
    try {
      closing = iterator.return(undefined).catch(() => undefined);
    } catch {
      closing = undefined;
    }
    return this.#runPending ? undefined : closing;
  }

  #finish(): Promise<IteratorResult<AgentEvent>> {
    const closing = this.#close();
    return closing === undefined ? finished() : closing.then(finished);
  }
}
