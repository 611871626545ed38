import type { Message, Part } from '../message.ts';
import type { JsonSchema } from '../tool.ts';
import type { TaskStatus } from './task-lifecycle.ts';

/** Why a task failed, safe to send to a caller. */
export interface TaskError {
  code: string;
  message: string;
}

/** Something a task produced besides its messages: a document, an image, a data set. */
export interface Artifact {
  readonly artifactId: string;
  readonly name?: string;
  readonly parts: readonly Part[];
}

/**
 * What a task paused for: the schema of the answer its agent expects, and the state it wants back
 * when the answer comes (the agent's own, never shown to callers by the surfaces).
 */
export interface TaskInputRequest {
  readonly schema?: JsonSchema;
  readonly state?: unknown;
}

/**
 * A unit of asynchronous work: one agent run (or a conversation's turns with one agent) for one
 * input, with what A2A keeps of a task. Stores hand out frozen snapshots of it.
 */
export interface Task {
  readonly id: string;
  /** The conversation it belongs to; a new one, named by its own id, when its creator named none. */
  readonly contextId: string;
  /** The agent that runs it. */
  readonly agentName: string;
  readonly status: TaskStatus;
  /** What the agent said with its current status (a question, when input-required), if anything. */
  readonly statusMessage?: Message;
  /** The text of the input it was created for. */
  readonly input: string;
  /** The text view of its answer: the final output once completed, the text so far before. */
  readonly output?: string;
  /** Why it failed, when failed. */
  readonly error?: TaskError;
  /**
   * What its last pause asked for (`input-required`): kept while it is paused and while the run
   * that answers it works, gone once it finishes.
   */
  readonly inputRequest?: TaskInputRequest;
  /** Its message history, oldest first (what its creator gave, and messages added since). */
  readonly messages: readonly Message[];
  /** What it produced, in the order each first appeared. */
  readonly artifacts: readonly Artifact[];
  readonly metadata: Readonly<Record<string, unknown>>;
  /** ISO 8601 timestamps. */
  readonly createdAt: string;
  readonly updatedAt: string;
  /**
   * The sequence number of the last event in its log (1 once created): this snapshot holds every
   * change up to that event and none after, so a reader that follows the log after `seq` misses
   * nothing and sees nothing twice.
   */
  readonly seq: number;
}

/** Whether an object (task metadata, say) has any own enumerable key. Internal to core. */
export function hasOwnKeys(object: Readonly<Record<string, unknown>>): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}
