import {
  type Artifact,
  isTerminalStatus,
  type Message,
  type Part,
  type Task,
  type TaskArtifactChunk,
  type TaskEvent,
  type TaskPatch,
  type TaskProgressEvent,
  type TaskStatusUpdateEvent,
} from '@agentport/core';

// How the store applies a checked change to a task it read, with the events describing it, as
// core's store interface says. The values given are copied (JSON, as the database keeps them).

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A task being changed. */
export type TaskDraft = Mutable<Task>;

/** What a step changed of the columns kept whole (undefined: unchanged). */
export interface StepChanges {
  messages: boolean;
  artifacts: boolean;
  /** The output replaced (not grown by deltas). */
  outputSet: boolean;
  /** The text the deltas added to the output, undefined when there were none. */
  delta: string | undefined;
}

/** A copy of a JSON value, as the database gives it back. */
export function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * Grows a draft's output by the text deltas among progress events; the text they added
 * (undefined when there were none).
 */
export function growOutput(
  draft: TaskDraft,
  events: readonly TaskProgressEvent[],
): string | undefined {
  let delta: string | undefined;
  for (const event of events) {
    if (event.type === 'text-delta') delta = (delta ?? '') + event.delta;
  }
  if (delta !== undefined) draft.output = (draft.output ?? '') + delta;
  return delta;
}

function chunked(
  existing: Artifact | undefined,
  chunk: TaskArtifactChunk,
  parts: Part[],
): Artifact {
  const name = chunk.name ?? existing?.name;
  const all =
    chunk.append === true && existing !== undefined ? [...existing.parts, ...parts] : parts;
  return name === undefined
    ? { artifactId: chunk.artifactId, parts: all }
    : { artifactId: chunk.artifactId, name, parts: all };
}

function applyChunks(draft: TaskDraft, chunks: readonly TaskArtifactChunk[], events: TaskEvent[]) {
  const artifacts = [...draft.artifacts];
  for (const chunk of chunks) {
    const index = artifacts.findIndex((artifact) => artifact.artifactId === chunk.artifactId);
    const parts = copy(chunk.parts) as Part[];
    const artifact = chunked(index === -1 ? undefined : artifacts[index], chunk, parts);
    if (index === -1) artifacts.push(artifact);
    else artifacts[index] = artifact;
    const event: Mutable<TaskEvent & { type: 'artifact-update' }> = {
      type: 'artifact-update',
      artifactId: chunk.artifactId,
      parts,
      append: chunk.append === true,
      lastChunk: chunk.lastChunk === true,
    };
    if (chunk.name !== undefined) event.name = chunk.name;
    events.push(event);
  }
  draft.artifacts = artifacts;
}

/** Sets the status and what goes with it; the status update describing the change. */
function applyStatus(draft: TaskDraft, patch: TaskPatch, timestamp: string): TaskStatusUpdateEvent {
  const { status, statusMessage, output, error, inputRequest } = patch;
  const moved = status !== undefined && status !== draft.status;
  const request = inputRequest === undefined ? undefined : copy(inputRequest);
  if (request !== undefined) draft.inputRequest = request;
  else if (moved && isTerminalStatus(status)) delete draft.inputRequest;
  if (statusMessage !== undefined) draft.statusMessage = copy(statusMessage);
  else if (moved) delete draft.statusMessage;
  if (status !== undefined) draft.status = status;
  // An output the text deltas made already (a run's final answer, most often) is no change.
  const changed = output !== undefined && output !== draft.output ? output : undefined;
  if (output !== undefined) draft.output = output;
  const kept = error === undefined ? undefined : { code: error.code, message: error.message };
  if (kept !== undefined) draft.error = kept;
  const event: Mutable<TaskStatusUpdateEvent> = {
    type: 'status-update',
    status: draft.status,
    timestamp,
  };
  if (draft.statusMessage !== undefined) event.message = draft.statusMessage;
  if (changed !== undefined) event.output = changed;
  if (kept !== undefined) event.error = kept;
  if (request !== undefined) event.inputRequest = request;
  return event;
}

function setsStatus(patch: TaskPatch): boolean {
  return (
    patch.status !== undefined ||
    patch.statusMessage !== undefined ||
    patch.output !== undefined ||
    patch.error !== undefined ||
    patch.inputRequest !== undefined
  );
}

/**
 * Applies a checked patch to a draft, in the order `TaskPatch` documents (progress, messages,
 * artifact chunks, then the status); the events describing it and what it changed.
 */
export function applyPatch(
  draft: TaskDraft,
  patch: TaskPatch,
  timestamp: string,
): { events: TaskEvent[]; changes: StepChanges } {
  const events: TaskEvent[] = [];
  const changes: StepChanges = {
    messages: false,
    artifacts: false,
    outputSet: false,
    delta: undefined,
  };
  const { progress, messages, artifacts } = patch;
  if (progress !== undefined && progress.length > 0) {
    changes.delta = growOutput(draft, progress);
    events.push(...copy(progress));
  }
  if (messages !== undefined && messages.length > 0) {
    const added = copy(messages) as Message[];
    draft.messages = [...draft.messages, ...added];
    for (const message of added) events.push({ type: 'message', message });
    changes.messages = true;
  }
  if (artifacts !== undefined && artifacts.length > 0) {
    applyChunks(draft, artifacts, events);
    changes.artifacts = true;
  }
  if (setsStatus(patch)) {
    events.push(applyStatus(draft, patch, timestamp));
    changes.outputSet = patch.output !== undefined;
  }
  draft.updatedAt = timestamp;
  return { events, changes };
}
