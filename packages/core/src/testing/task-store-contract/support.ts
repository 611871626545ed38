import { expect } from 'vitest';
import type { Artifact, Task } from '../../tasks/task.ts';
import type { TaskLogEntry } from '../../tasks/task-event.ts';
import type { NewTask, TaskStore } from '../../tasks/task-store.ts';

/** What a store made for the contract must honour. */
export interface TaskStoreContractOptions {
  /** Its clock, in milliseconds: the suite moves it to expire tasks. */
  now: () => number;
  /** How long it keeps a finished task. */
  ttlMs: number;
  /** How many events of one task's log it keeps at most (the oldest go first). */
  maxEventsPerTask: number;
}

/** Makes a new, empty store for one test of the contract. */
export type TaskStoreFactory = (
  options: TaskStoreContractOptions,
) => TaskStore | Promise<TaskStore>;

/** The store of one test, and the clock it was made with. */
export interface ContractStore {
  store: TaskStore;
  clock: { now: number };
  options: TaskStoreContractOptions;
}

/** The retention the contract makes its stores with. */
export const CONTRACT_TTL_MS = 60_000;
export const CONTRACT_MAX_EVENTS = 50;

/** A new store for a test, with a clock the test can move. */
export async function contractStore(createStore: TaskStoreFactory): Promise<ContractStore> {
  const clock = { now: Date.UTC(2026, 0, 1) };
  const options = {
    now: () => clock.now,
    ttlMs: CONTRACT_TTL_MS,
    maxEventsPerTask: CONTRACT_MAX_EVENTS,
  };
  return { store: await createStore(options), clock, options };
}

/** What a test creates a task from. */
export function newTask(id: string, fields: Partial<NewTask> = {}): NewTask {
  return { id, agentName: 'echo', input: `input ${id}`, metadata: { id }, ...fields };
}

/** Moves a task from submitted to completed with an output. */
export async function finish(store: TaskStore, id: string, output = 'ok'): Promise<Task> {
  await store.update(id, { status: 'working' }, { expectedStatus: 'submitted' });
  return store.update(id, { status: 'completed', output }, { expectedStatus: 'working' });
}

/** A task's events by type (a status update as `status:<status>`), in order. */
export function typesOf(entries: readonly TaskLogEntry[]): string[] {
  return entries.map(({ event }) =>
    event.type === 'status-update' ? `status:${event.status}` : event.type,
  );
}

/** Asserts that entries have the sequence numbers from `first` on, one by one. */
export function expectSeqsFrom(entries: readonly TaskLogEntry[], first: number): void {
  expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, index) => first + index));
}

type Folded = {
  -readonly [K in
    | 'status'
    | 'statusMessage'
    | 'output'
    | 'error'
    | 'messages'
    | 'artifacts'
    | 'seq']: Task[K];
};

/** The parts of a task its events describe, as a snapshot gives them. */
export function foldedFields(task: Task): Folded {
  const { status, statusMessage, output, error, messages, artifacts, seq } = task;
  return { status, statusMessage, output, error, messages, artifacts, seq };
}

/** Applies one artifact-update event to a list of artifacts, as the store does. */
function withChunk(artifacts: Artifact[], event: TaskLogEntry['event']): Artifact[] {
  if (event.type !== 'artifact-update') return artifacts;
  const index = artifacts.findIndex((artifact) => artifact.artifactId === event.artifactId);
  const existing = artifacts[index];
  const parts =
    event.append && existing !== undefined ? [...existing.parts, ...event.parts] : event.parts;
  const name = event.name ?? existing?.name;
  const artifact = { artifactId: event.artifactId, ...(name === undefined ? {} : { name }), parts };
  return index === -1
    ? [...artifacts, artifact]
    : artifacts.map((kept, at) => (at === index ? artifact : kept));
}

/**
 * A task's fields as a reader rebuilds them from a snapshot and the events after its `seq`, by
 * what the README says each event means.
 */
export function fold(snapshot: Task, entries: readonly TaskLogEntry[]): Folded {
  let folded: Folded = foldedFields(snapshot);
  for (const { seq, event } of entries) {
    switch (event.type) {
      case 'status-update': {
        const { status, message, output, error } = event;
        folded = { ...folded, status, statusMessage: message };
        if (output !== undefined) folded.output = output;
        if (error !== undefined) folded.error = error;
        break;
      }
      case 'message':
        folded = { ...folded, messages: [...folded.messages, event.message] };
        break;
      case 'artifact-update':
        folded = { ...folded, artifacts: withChunk([...folded.artifacts], event) };
        break;
      case 'text-delta':
        folded = { ...folded, output: (folded.output ?? '') + event.delta };
        break;
      default:
        break;
    }
    folded.seq = seq;
  }
  return folded;
}

/** Reads everything an async iterable yields. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of iterable) all.push(item);
  return all;
}
