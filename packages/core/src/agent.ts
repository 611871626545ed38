import type { AgentEvent } from './agent-event.ts';
import type { Message } from './message.ts';
import type { Tool } from './tool.ts';

/** Options of one agent run. */
export interface AgentRunOptions {
  /** Aborting it stops the run; every surface aborts it when its caller goes away or cancels. */
  signal?: AbortSignal;
  /** Free-form metadata passed by the caller (task metadata, request ids, ...). */
  metadata?: Record<string, unknown>;
  /** The conversation's earlier messages (user and agent), oldest first; none when omitted. */
  history?: readonly Message[];
  /** The conversation the run belongs to, when it belongs to one. */
  contextId?: string;
  /** The task the run is for, when it runs as a task. */
  taskId?: string;
  /** What this agent's `input-required` event asked to get back, when the run answers it. */
  resumeState?: unknown;
}

/** What a run is given: the text of a user message, or the message (text, data and file parts). */
export type AgentInput = string | Message;

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
  /**
   * The media types of the parts it takes (default: text and data, `text/plain` and
   * `application/json`); an agent that reads files lists theirs (`image/*`), so cards say so.
   */
  readonly inputModes?: readonly string[];
  /** The media types of the parts it answers with (default `text/plain` and `application/json`). */
  readonly outputModes?: readonly string[];
  /**
   * Whether a run may be made again from the start when the process running it died before it
   * ended (it has no effect that a second run would repeat harmfully): a runner that claims tasks
   * then takes such a task over instead of leaving it to fail `worker_lost`. Default false.
   */
  readonly retrySafe?: boolean;
  /**
   * Runs the agent to completion and resolves with its final output; rejects with an
   * InputRequiredError when the run pauses for its caller.
   */
  invoke(input: AgentInput, options?: AgentRunOptions): Promise<string>;
  /** Runs the agent and yields its events, ending with `done`, `error` or `input-required`. */
  stream(input: AgentInput, options?: AgentRunOptions): AsyncIterable<AgentEvent>;
}
