/** A chunk of the agent's answer text. */
export interface TextDeltaEvent {
  type: 'text-delta';
  delta: string;
}

/** The agent calls one of its tools. */
export interface ToolCallEvent {
  type: 'tool-call';
  id: string;
  name: string;
  input: unknown;
}

/** A tool call returned. */
export interface ToolResultEvent {
  type: 'tool-result';
  id: string;
  name: string;
  output: unknown;
}

/** The agent hands the conversation over to another agent. */
export interface HandoffEvent {
  type: 'handoff';
  from: string;
  to: string;
}

/** The run finished; `output` is the final answer. Always the last event of a successful run. */
export interface DoneEvent {
  type: 'done';
  output: string;
}

/** The run failed; always the last event of a failed run. */
export interface ErrorEvent {
  type: 'error';
  code: string;
  message: string;
}

/** One event of an agent run, discriminated by `type`. */
export type AgentEvent =
  | TextDeltaEvent
  | ToolCallEvent
  | ToolResultEvent
  | HandoffEvent
  | DoneEvent
  | ErrorEvent;

/** The names of every agent event type, in a stable order. */
export const AGENT_EVENT_TYPES = [
  'text-delta',
  'tool-call',
  'tool-result',
  'handoff',
  'done',
  'error',
] as const satisfies readonly AgentEvent['type'][];
