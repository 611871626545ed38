import type { Part } from './message.ts';
import type { JsonSchema } from './tool.ts';

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

/**
 * A chunk of an artifact the agent produces besides its text (a document, an image, a data set):
 * with `append`, its parts are added to the artifact of that id (or start it); else they replace
 * it. `lastChunk` says no more chunks of it follow.
 */
export interface ArtifactUpdateEvent {
  type: 'artifact-update';
  artifactId: string;
  name?: string;
  parts: readonly Part[];
  append?: boolean;
  lastChunk?: boolean;
}

/**
 * The run pauses for its caller: `question` is what it asks, `schema` (optional) the JSON Schema
 * of the answer it expects, and `state` (optional, JSON) what it wants back when the answer comes
 * (as `context.resumeState`), however much later and in whichever process. The last event of a
 * paused run; a task moves to `input-required` with it.
 */
export interface InputRequiredEvent {
  type: 'input-required';
  question: readonly Part[];
  schema?: JsonSchema;
  state?: unknown;
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
  | ArtifactUpdateEvent
  | DoneEvent
  | ErrorEvent
  | InputRequiredEvent;

/** The names of every agent event type, in a stable order. */
export const AGENT_EVENT_TYPES = [
  'text-delta',
  'tool-call',
  'tool-result',
  'handoff',
  'artifact-update',
  'done',
  'error',
  'input-required',
] as const satisfies readonly AgentEvent['type'][];
