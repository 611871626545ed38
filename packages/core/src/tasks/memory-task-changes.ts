import { jsonWeight } from '../json-weight.ts';
import { type Message, messageFault, type Part, partsFault } from '../message.ts';
import { errorWeight, messageWeight } from './event-weight.ts';
import type { Entry } from './memory-entries.ts';
import type { Artifact, TaskError, TaskInputRequest } from './task.ts';
import {
  type TaskArtifactUpdateEvent,
  type TaskEvent,
  type TaskProgressEvent,
  type TaskStatusUpdateEvent,
  taskProgressFault,
} from './task-event.ts';
import { isTerminalStatus, type TaskStatus } from './task-lifecycle.ts';
import type { TaskArtifactChunk, TaskPatch } from './task-store.ts';

// How the in-memory store checks and applies a change to an entry, with the events describing it.

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Refuses progress events the store could not keep as they are (see `progressEventFault`). */
export function assertProgress(events: readonly TaskProgressEvent[]): void {
  if (!Array.isArray(events)) throw new TypeError('Progress events must be an array');
  for (const event of events) {
    const fault = taskProgressFault(event);
    if (fault !== undefined) throw new TypeError(`A progress event must not be ${fault}`);
  }
}

function assertMessage(message: unknown, what: string): void {
  const fault = messageFault(message);
  if (fault !== undefined) throw new TypeError(`${what} must not be ${fault}`);
}

/** Refuses a list of messages the store could not keep. */
export function assertMessages(messages: unknown): void {
  if (messages === undefined) return;
  if (!Array.isArray(messages)) throw new TypeError("A task's messages must be an array");
  for (const message of messages) assertMessage(message, "A task's message");
}

function assertChunk(chunk: TaskArtifactChunk): void {
  const { artifactId, name, parts, append, lastChunk } = chunk ?? {};
  if (typeof artifactId !== 'string' || artifactId === '') {
    throw new TypeError('An artifact chunk must have a string artifactId');
  }
  if (name !== undefined && typeof name !== 'string') {
    throw new TypeError("An artifact chunk's name must be a string");
  }
  const fault = partsFault(parts);
  if (fault !== undefined) throw new TypeError(`An artifact chunk must not have ${fault}`);
  for (const flag of [append, lastChunk]) {
    if (flag !== undefined && typeof flag !== 'boolean') {
      throw new TypeError("An artifact chunk's append and lastChunk must be booleans");
    }
  }
}

/**
 * Refuses a patch whose values the store cannot count or keep: an output that is not a string,
 * an error without string code and message (one such value, a hand-written agent's numeric
 * output, made the byte count NaN, after which every finished task was evicted at once), or
 * messages, artifact chunks and progress events without their shapes.
 */
export function assertPatch(patch: TaskPatch): void {
  const { output, error, statusMessage, messages, artifacts, progress } = patch;
  if (output !== undefined && typeof output !== 'string') {
    throw new TypeError(`A task's output must be a string, not ${typeof output}`);
  }
  if (
    error !== undefined &&
    (typeof error?.code !== 'string' || typeof error.message !== 'string')
  ) {
    throw new TypeError("A task's error must have a string code and message");
  }
  if (statusMessage !== undefined) assertMessage(statusMessage, "A task's status message");
  const { inputRequest } = patch;
  if (
    inputRequest !== undefined &&
    (typeof inputRequest !== 'object' ||
      inputRequest === null ||
      (inputRequest.schema !== undefined &&
        (typeof inputRequest.schema !== 'object' || inputRequest.schema === null)))
  ) {
    throw new TypeError("A task's input request must be an object, its schema an object");
  }
  assertMessages(messages);
  if (artifacts !== undefined) {
    if (!Array.isArray(artifacts)) throw new TypeError('Artifact chunks must be an array');
    for (const chunk of artifacts) assertChunk(chunk);
  }
  if (progress !== undefined) assertProgress(progress);
}

/** Whether a patch sets anything at all. */
export function changesAnything(patch: TaskPatch): boolean {
  return (
    patch.status !== undefined ||
    patch.statusMessage !== undefined ||
    patch.output !== undefined ||
    patch.error !== undefined ||
    patch.inputRequest !== undefined ||
    (patch.messages?.length ?? 0) > 0 ||
    (patch.artifacts?.length ?? 0) > 0 ||
    (patch.progress?.length ?? 0) > 0
  );
}

/** The store's own copy of parts, frozen (what a caller gets cannot change the store). */
function frozenParts(parts: readonly Part[]): readonly Part[] {
  return Object.freeze(parts.map((part) => Object.freeze({ ...part })));
}

/** The store's own copy of a message, frozen: a message frozen whole already is kept as it is. */
export function frozenMessage(message: Message): Message {
  const { messageId, role, parts } = message;
  if (Object.isFrozen(message) && Object.isFrozen(parts) && parts.every(Object.isFrozen)) {
    return message;
  }
  return Object.freeze({ messageId, role, parts: frozenParts(parts) });
}

/** Grows an entry's text view by the text deltas among progress events; the bytes it grew by. */
export function growOutput(entry: Entry, events: readonly TaskProgressEvent[]): number {
  let output = entry.output;
  let grown = 0;
  for (const event of events) {
    if (event.type !== 'text-delta') continue;
    output = output === undefined ? event.delta : output + event.delta;
    grown += event.delta.length;
  }
  entry.output = output;
  return 2 * grown;
}

/** Adds messages to an entry's history, each with its event; the bytes they hold. */
function addMessages(entry: Entry, messages: readonly Message[], events: TaskEvent[]): number {
  const history = [...entry.messages];
  let bytes = 0;
  for (const given of messages) {
    const message = frozenMessage(given);
    history.push(message);
    events.push(Object.freeze({ type: 'message', message }));
    bytes += messageWeight(message);
  }
  entry.messages = Object.freeze(history);
  return bytes;
}

/** The artifact that chunk `parts` (the store's copy) make of the one of its id (if any). */
function chunked(
  existing: Artifact | undefined,
  chunk: TaskArtifactChunk,
  parts: readonly Part[],
): Artifact {
  const { artifactId } = chunk;
  const name = chunk.name ?? existing?.name;
  const all =
    chunk.append === true && existing !== undefined
      ? Object.freeze([...existing.parts, ...parts])
      : parts;
  return Object.freeze(
    name === undefined ? { artifactId, parts: all } : { artifactId, name, parts: all },
  );
}

/** Applies artifact chunks to an entry, each with its event; the bytes they changed by. */
function applyChunks(
  entry: Entry,
  chunks: readonly TaskArtifactChunk[],
  events: TaskEvent[],
): number {
  const artifacts = [...entry.artifacts];
  let bytes = 0;
  for (const chunk of chunks) {
    const index = artifacts.findIndex((artifact) => artifact.artifactId === chunk.artifactId);
    const existing = index === -1 ? undefined : artifacts[index];
    const parts = frozenParts(chunk.parts);
    const artifact = chunked(existing, chunk, parts);
    if (index === -1) artifacts.push(artifact);
    else artifacts[index] = artifact;
    bytes += jsonWeight(artifact) - (existing === undefined ? 0 : jsonWeight(existing));
    const event: Mutable<TaskArtifactUpdateEvent> = {
      type: 'artifact-update',
      artifactId: chunk.artifactId,
      parts,
      append: chunk.append === true,
      lastChunk: chunk.lastChunk === true,
    };
    if (chunk.name !== undefined) event.name = chunk.name;
    events.push(Object.freeze(event));
  }
  entry.artifacts = Object.freeze(artifacts);
  return bytes;
}

/**
 * The status updates that carry nothing but a status and a timestamp, shared: under load many
 * tasks start (and are created) within one millisecond, and one frozen event serves them all
 * where each would keep an object of its own in its log (docs/decisions/0005).
 */
export class PlainStatusEvents {
  #timestamp = '';
  /** The events of the current millisecond, by status (a few statuses move often). */
  #events: Partial<Record<TaskStatus, TaskStatusUpdateEvent>> = {};

  /** The event of a move to `status` at `timestamp`, without message, output or error. */
  of(status: TaskStatus, timestamp: string): TaskStatusUpdateEvent {
    if (timestamp !== this.#timestamp) {
      this.#events = {};
      this.#timestamp = timestamp;
    }
    const known = this.#events[status];
    if (known !== undefined) return known;
    const event: TaskStatusUpdateEvent = Object.freeze({
      type: 'status-update',
      status,
      timestamp,
    });
    this.#events[status] = event;
    return event;
  }
}

/** Where applying a patch counts the bytes the entry's fields changed by (its log not included). */
export interface ByteTally {
  bytes: number;
}

/** Sets an entry's status, status message, output and error; the status update describing it. */
function applyStatus(
  entry: Entry,
  patch: TaskPatch,
  timestamp: string,
  plain: PlainStatusEvents,
  tally: ByteTally,
): TaskStatusUpdateEvent {
  const { status, statusMessage, output, error, inputRequest } = patch;
  const moved = status !== undefined && status !== entry.status;
  let request: TaskInputRequest | undefined;
  if (inputRequest !== undefined) {
    request = Object.freeze({ ...inputRequest });
    tally.bytes += jsonWeight(request) - requestWeight(entry.inputRequest);
    entry.inputRequest = request;
  } else if (
    status !== undefined &&
    moved &&
    entry.inputRequest !== undefined &&
    isTerminalStatus(status)
  ) {
    tally.bytes -= requestWeight(entry.inputRequest);
    entry.inputRequest = undefined;
  }
  if (statusMessage !== undefined || (moved && entry.statusMessage !== undefined)) {
    const message = statusMessage === undefined ? undefined : frozenMessage(statusMessage);
    tally.bytes += messageWeight(message) - messageWeight(entry.statusMessage);
    entry.statusMessage = message;
  }
  if (status !== undefined) entry.status = status;
  // An output the text deltas made already (a run's final answer, most often) is no change.
  const changed = output !== undefined && output !== entry.output ? output : undefined;
  if (output !== undefined) {
    tally.bytes += 2 * (output.length - (entry.output?.length ?? 0));
    // The given string rather than the deltas joined (one flat string kept, not a rope of them).
    entry.output = output;
  }
  let kept: TaskError | undefined;
  if (error !== undefined) {
    kept = Object.freeze({ code: error.code, message: error.message });
    tally.bytes += errorWeight(kept) - errorWeight(entry.error);
    entry.error = kept;
  }
  if (
    entry.statusMessage === undefined &&
    changed === undefined &&
    kept === undefined &&
    request === undefined
  ) {
    return plain.of(entry.status, timestamp);
  }
  const event: Mutable<TaskStatusUpdateEvent> = {
    type: 'status-update',
    status: entry.status,
    timestamp,
  };
  if (entry.statusMessage !== undefined) event.message = entry.statusMessage;
  if (changed !== undefined) event.output = changed;
  if (kept !== undefined) event.error = kept;
  if (request !== undefined) event.inputRequest = request;
  return Object.freeze(event);
}

/** Whether a patch sets the status, its message, the output, the error or the input request. */
function setsStatus(patch: TaskPatch): boolean {
  return (
    patch.status !== undefined ||
    patch.statusMessage !== undefined ||
    patch.output !== undefined ||
    patch.error !== undefined ||
    patch.inputRequest !== undefined
  );
}

function requestWeight(request: TaskInputRequest | undefined): number {
  return request === undefined ? 0 : jsonWeight(request);
}

/**
 * Applies a checked patch to an entry; the events describing it, in the order `TaskPatch`
 * documents (a status change alone, the most common, is one literal array of one event). The
 * bytes the entry's fields changed by are added to `tally`.
 */
export function applyPatch(
  entry: Entry,
  patch: TaskPatch,
  timestamp: string,
  plain: PlainStatusEvents,
  tally: ByteTally,
): TaskEvent[] {
  const { progress, messages, artifacts } = patch;
  const hasProgress = progress !== undefined && progress.length > 0;
  const hasMessages = messages !== undefined && messages.length > 0;
  const hasArtifacts = artifacts !== undefined && artifacts.length > 0;
  if (!hasProgress && !hasMessages && !hasArtifacts) {
    return [applyStatus(entry, patch, timestamp, plain, tally)];
  }
  if (hasProgress) tally.bytes += growOutput(entry, progress);
  if (hasProgress && !hasMessages && !hasArtifacts) {
    // A run's last progress and its end (a spread makes an array of the size it needs).
    return setsStatus(patch)
      ? [...progress, applyStatus(entry, patch, timestamp, plain, tally)]
      : progress.slice();
  }
  const events: TaskEvent[] = hasProgress ? progress.slice() : [];
  if (hasMessages) tally.bytes += addMessages(entry, messages, events);
  if (hasArtifacts) tally.bytes += applyChunks(entry, artifacts, events);
  if (setsStatus(patch)) events.push(applyStatus(entry, patch, timestamp, plain, tally));
  return events;
}
