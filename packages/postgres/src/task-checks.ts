import {
  InvalidInputError,
  type NewTask,
  type TaskPatch,
  type TaskProgressEvent,
} from '@agentport/core';
import { messageFault, partsFault, taskProgressFault } from '@agentport/core/internal';

// The checks of what the store is given, as core's store interface says: a value it could not
// keep is a TypeError, a wrong field of a new task an InvalidInputError naming it.

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

/** Refuses progress events the store could not keep as they are. */
export function assertProgress(events: readonly TaskProgressEvent[]): void {
  if (!Array.isArray(events)) throw new TypeError('Progress events must be an array');
  for (const event of events) {
    const fault = taskProgressFault(event);
    if (fault !== undefined) throw new TypeError(`A progress event must not be ${fault}`);
  }
}

function assertChunks(artifacts: unknown): void {
  if (artifacts === undefined) return;
  if (!Array.isArray(artifacts)) throw new TypeError('Artifact chunks must be an array');
  for (const chunk of artifacts) {
    const { artifactId, name, parts, append, lastChunk } = chunk ?? {};
    if (typeof artifactId !== 'string' || artifactId === '') {
      throw new TypeError('An artifact chunk must have a string artifactId');
    }
    if (name !== undefined && typeof name !== 'string') {
      throw new TypeError("An artifact chunk's name must be a string");
    }
    const fault = partsFault(parts);
    if (fault !== undefined) throw new TypeError(`An artifact chunk must not have ${fault}`);
    if (
      (append !== undefined && typeof append !== 'boolean') ||
      (lastChunk !== undefined && typeof lastChunk !== 'boolean')
    ) {
      throw new TypeError("An artifact chunk's append and lastChunk must be booleans");
    }
  }
}

/** Refuses a patch whose values the store could not keep (see `TaskStore.update`). */
export function assertPatch(patch: TaskPatch): void {
  const { output, error, statusMessage, inputRequest } = patch;
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
  if (
    inputRequest !== undefined &&
    (typeof inputRequest !== 'object' ||
      inputRequest === null ||
      (inputRequest.schema !== undefined &&
        (typeof inputRequest.schema !== 'object' || inputRequest.schema === null)))
  ) {
    throw new TypeError("A task's input request must be an object, its schema an object");
  }
  assertMessages(patch.messages);
  assertChunks(patch.artifacts);
  if (patch.progress !== undefined) assertProgress(patch.progress);
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

/** The context of a new task: the one it names (a non-empty string), else its own id. */
export function contextIdOf(input: NewTask): string {
  const { contextId } = input;
  if (contextId === undefined) return input.id;
  if (typeof contextId !== 'string' || contextId === '') {
    throw new InvalidInputError('contextId must be a non-empty string', { field: 'contextId' });
  }
  return contextId;
}

/** A task's own retention, checked, else the store's. */
export function retentionOf(input: NewTask, ttlMs: number): number {
  const { retainMs } = input;
  if (retainMs === undefined) return ttlMs;
  if (typeof retainMs !== 'number' || !(retainMs >= 0) || !Number.isFinite(retainMs)) {
    throw new InvalidInputError('retainMs must be a number of milliseconds from 0', {
      field: 'retainMs',
    });
  }
  return retainMs;
}

/** Whether a new task is created started; anything but `submitted` or `working` is refused. */
export function startsWorking(input: NewTask): boolean {
  const { status } = input;
  if (status === undefined || status === 'submitted') return false;
  if (status === 'working') return true;
  throw new InvalidInputError("status must be 'submitted' or 'working'", { field: 'status' });
}

/** Refuses a new task without a string id, agent name and input. */
export function assertNewTask(input: NewTask): void {
  for (const field of ['id', 'agentName', 'input'] as const) {
    if (typeof input[field] !== 'string' || (field !== 'input' && input[field] === '')) {
      throw new InvalidInputError(`${field} must be a non-empty string`, { field });
    }
  }
  const { metadata } = input;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new InvalidInputError('metadata must be an object', { field: 'metadata' });
  }
  assertMessages(input.messages);
}
