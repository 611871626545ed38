import {
  type AgentEvent,
  type AgentInput,
  type AgentPortError,
  type ArtifactUpdateEvent,
  agentMessage,
  type ConversationStore,
  type Message,
  type TaskArtifactChunk,
  type TaskPatch,
  type TaskProgressEvent,
  type TerminalEvent,
  textOf,
  toAgentPortError,
  userMessage,
} from '@agentport/core';
import {
  errorFromEvent,
  partsFault,
  pausePatch,
  progressEventFault,
  taskProgressFault,
} from '@agentport/core/internal';

/** An artifact chunk among a run's pending events (written with an update, not an append). */
export class PendingChunk {
  readonly chunk: TaskArtifactChunk;
  constructor(chunk: TaskArtifactChunk) {
    this.chunk = chunk;
  }
}

/** One of a run's events not given to the store yet. */
export type PendingEvent = TaskProgressEvent | PendingChunk;

/** The chunk an agent's `artifact-update` makes (the store sets what it leaves out). */
export function chunkOf(event: ArtifactUpdateEvent): PendingChunk {
  const { artifactId, name, parts, append, lastChunk } = event;
  const chunk: TaskArtifactChunk = { artifactId, parts };
  if (name !== undefined) chunk.name = name;
  if (append !== undefined) chunk.append = append;
  if (lastChunk !== undefined) chunk.lastChunk = lastChunk;
  return new PendingChunk(chunk);
}

/** Whether pending events hold an artifact chunk (they are then written in order, not appended). */
export function hasChunks(events: readonly PendingEvent[]): boolean {
  for (const event of events) if (event instanceof PendingChunk) return true;
  return false;
}

/** One store write of pending events: progress (with its SSE data) and, for an update, chunks. */
export type PendingWrite = (
  progress: TaskProgressEvent[],
  json: string[],
  artifacts: TaskArtifactChunk[] | undefined,
) => Promise<unknown>;

/**
 * Writes pending events and chunks in their order, one write after the other: each run of chunks
 * with the progress events before it in one update, progress after the last chunk in an append.
 * `json` is the SSE data of the progress events, in order.
 */
export function writeInOrder(
  events: readonly PendingEvent[],
  json: readonly string[],
  write: PendingWrite,
): Promise<unknown> {
  const writes: Parameters<PendingWrite>[] = [];
  let progress: TaskProgressEvent[] = [];
  let data: string[] = [];
  let artifacts: TaskArtifactChunk[] = [];
  let next = 0;
  for (const event of events) {
    if (event instanceof PendingChunk) {
      artifacts.push(event.chunk);
      continue;
    }
    if (artifacts.length > 0) {
      writes.push([progress, data, artifacts]);
      progress = [];
      data = [];
      artifacts = [];
    }
    progress.push(event);
    data.push(json[next++] as string);
  }
  if (artifacts.length > 0 || progress.length > 0)
    writes.push([progress, data, artifacts.length > 0 ? artifacts : undefined]);
  let written: Promise<unknown> = Promise.resolve();
  for (const args of writes) written = written.then(() => write(...args));
  return written;
}

/**
 * The end of a run for the agent's terminal event: completed with its output, failed with its
 * error, or paused with its question; `json` is the SSE data of a `done` or `error`.
 */
export function endOf(
  event: TerminalEvent,
  json: string,
  agentName: string,
  taskId: string,
  contextId: string,
): RunEnd {
  if (event.type === 'done') return { patch: { status: 'completed', output: event.output }, json };
  if (event.type === 'error') {
    const { code, message } = errorFromEvent(event, agentName);
    return { patch: { status: 'failed', error: { code, message } }, json };
  }
  const patch = pausePatch(event);
  return { patch, json: pauseJson(patch.statusMessage, taskId, contextId) };
}

/**
 * The data of a stream's `input-required` event: the question's text and parts, and where the
 * answer goes (the task, its context); never the agent's `state`.
 */
export function pauseJson(
  question: Message | undefined,
  taskId: string,
  contextId: string,
): string {
  const parts = question?.parts ?? [];
  return JSON.stringify({ question: textOf(parts), parts, taskId, contextId });
}

/** The end of a run with the events not written yet (no spread: it is on every run's path). */
export function withProgress(patch: TaskPatch, progress: TaskProgressEvent[]): TaskPatch {
  if (patch.status === 'input-required') return { ...patch, progress };
  return patch.error === undefined
    ? { status: patch.status, output: patch.output, progress }
    : { status: patch.status, error: patch.error, progress };
}

/** Whether a write lost to a cancel (the task was terminal by then). */
export function isTerminalConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'task_conflict' || code === 'invalid_transition';
}

/** The end of a run as the agent gave it (or as it failed): its patch and its SSE data. */
export interface RunEnd {
  patch: TaskPatch;
  json: string;
}

/** The end of a run that failed with `error`. */
export function failedEnd(error: AgentPortError): RunEnd {
  const { code, message } = error;
  return {
    patch: { status: 'failed', error: { code, message } },
    json: JSON.stringify({ code, message }),
  };
}

/**
 * How a stream run's turn is recorded in its conversation when it completed or paused: the
 * caller's message and the answer (or the question: the task then waits for input there); a
 * context another agent took meanwhile keeps its own messages. A text the task does not hold
 * becomes its message here, and goes before the question of a pause. Undefined when there is
 * nothing to record.
 */
export function turnRecord(
  conversations: ConversationStore | undefined,
  agentName: string,
  run: { readonly id: string; readonly contextId: string },
  input: AgentInput,
  end: RunEnd,
): (() => Promise<void>) | undefined {
  const { patch } = end;
  const paused = patch.status === 'input-required';
  if (conversations === undefined && !(paused && typeof input === 'string')) return undefined;
  const message = typeof input === 'string' ? userMessage(input) : input;
  if (paused && typeof input === 'string') patch.messages = [message, ...(patch.messages ?? [])];
  if (conversations === undefined || patch.status === 'failed') return undefined;
  const reply = paused ? (patch.statusMessage as Message) : agentMessage(patch.output ?? '');
  const change = paused
    ? { agentName, messages: [message, reply], waitingTaskId: run.id }
    : { agentName, messages: [message, reply] };
  return () =>
    conversations.append(run.contextId, change).catch((error: unknown) => {
      if (toAgentPortError(error).code !== 'context_not_found') throw error;
    });
}

/** What is wrong with an agent's event for the log and the stream, or undefined. */
export function faultOf(event: AgentEvent): string | undefined {
  switch (event.type) {
    case 'done':
    case 'error':
      return undefined;
    case 'artifact-update':
      return progressEventFault(event);
    case 'input-required': {
      const fault = partsFault(event.question);
      return fault === undefined ? undefined : `an input-required question with ${fault}`;
    }
    default:
      return taskProgressFault(event);
  }
}
