import type { AgentEvent } from './agent-event.ts';
import type { Tool } from './tool.ts';

/** Options of one agent run. */
export interface AgentRunOptions {
  /** Aborting it stops the run; every surface aborts it when its caller goes away or cancels. */
  signal?: AbortSignal;
  /** Free-form metadata passed by the caller (task metadata, request ids, ...). */
  metadata?: Record<string, unknown>;
}

/** An agent: an identity, its tools and handoffs, and two ways to run it. */
export interface Agent {
  /** Its id: lower-case letters, digits, `-` and `_`. */
  readonly name: string;
  readonly description?: string;
  readonly instructions?: string;
  readonly model?: string;
  readonly tools: readonly Tool[];
  /** Other agents this one can hand the conversation over to. */
  readonly handoffs: readonly Agent[];
  /** Runs the agent to completion and resolves with its final output. */
  invoke(input: string, options?: AgentRunOptions): Promise<string>;
  /** Runs the agent and yields its events, ending with `done` or `error`. */
  stream(input: string, options?: AgentRunOptions): AsyncIterable<AgentEvent>;
}
