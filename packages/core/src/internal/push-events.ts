import type { AgentEvent } from '../agent-event.ts';

/**
 * The push side of a `defineAgent` stream, for a consumer that would only turn each pulled event
 * into a callback anyway (an SSE writer, say): `stream[PUSH_EVENTS](observer)` instead of
 * iterating. It spares the promise per event and its consumer's reaction, which an open stream
 * otherwise keeps while the agent waits. A registered symbol, so other packages can test for it
 * without importing anything; a stream is either pushed or iterated, not both.
 */
export const PUSH_EVENTS = Symbol.for('agentport.agent-events.push');

/** What {@link PUSH_EVENTS} calls; none of its methods may throw. */
export interface AgentEventObserver {
  /** One event; false stops the stream (the run is closed as by `return()`). */
  next(event: AgentEvent): boolean;
  /** The stream could not start (the run function threw); nothing else is called. */
  error(error: unknown): void;
  /** The stream has ended and its run is closed; called once, last. */
  complete(): void;
}

/** An event stream that may offer its push side. */
export type PushedEvents = AsyncIterable<AgentEvent> & {
  [PUSH_EVENTS]?: (observer: AgentEventObserver) => void;
};
