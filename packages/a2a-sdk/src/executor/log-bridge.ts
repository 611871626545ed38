import type { Artifact, Part, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import {
  type AgentEvent as CoreAgentEvent,
  type Task as CoreTask,
  EventsExpiredError,
  isInterruptedStatus,
  isTerminalStatus,
  type TaskArtifactUpdateEvent,
  type TaskEvent,
  type TaskRunner,
  type TaskStatusUpdateEvent,
} from '@agentport/core';
import { a2aPartsOf, a2aStateOf, errorParts } from '../store/task-view.ts';
import { dataPart, OUTPUT_ARTIFACT_ID, textOfParts, textPart } from './parts.ts';
import type { TaskPublisher } from './task-publisher.ts';

/** The working-status parts that show a tool call, a tool result or a handoff. */
function progressParts(event: CoreAgentEvent | TaskEvent): Part[] | undefined {
  switch (event.type) {
    case 'tool-call':
      return [textPart(`Calling tool '${event.name}'`), dataPart(event)];
    case 'tool-result':
      return [textPart(`Tool '${event.name}' returned`), dataPart(event)];
    case 'handoff':
      return [textPart(`Handing off from '${event.from}' to '${event.to}'`), dataPart(event)];
    default:
      return undefined;
  }
}

/** How {@link publishTaskLog} begins and when it stops early. */
export interface PublishLogOptions {
  /**
   * The task's event was published before, or is published as it is (a follow-up, a
   * subscription): it goes out at once, and the log's events follow.
   */
  resumed: boolean;
  /** Stops publishing (the reader went away). */
  signal?: AbortSignal;
  /** The task as the runner created it (see `TaskFollowOptions.task`). */
  created?: CoreTask;
}

/** The artifact chunk of a core artifact update, in the SDK's shape. */
function artifactOf(event: TaskArtifactUpdateEvent): Artifact {
  return {
    artifactId: event.artifactId,
    name: event.name ?? '',
    description: '',
    parts: a2aPartsOf(event.parts),
    metadata: undefined,
    extensions: [],
  };
}

/** What a task's log says, published on a bus as it comes: the state of one reading. */
class LogPublisher {
  readonly #publisher: TaskPublisher;
  /** The text of the output artifact published so far. */
  #text: string;

  constructor(publisher: TaskPublisher, task: Task, resumed: boolean, created?: CoreTask) {
    this.#publisher = publisher;
    // The task event waits for the run's `working` (and carries it, with the first text); a
    // task still `submitted` at the end of the tick (every slot taken) is published so then.
    if (resumed) publisher.open(task);
    else publisher.begin(task);
    // Created started: its log's `working` update is before the events followed.
    if (created?.status === 'working') publisher.working();
    const output = task.artifacts?.find(({ artifactId }) => artifactId === OUTPUT_ARTIFACT_ID);
    this.#text = output === undefined ? '' : textOfParts(output.parts);
  }

  /** Publishes one event of the log; true once the task ended (or paused for its caller). */
  apply(event: TaskEvent): boolean {
    const publisher = this.#publisher;
    if (event.type === 'text-delta') {
      if (event.delta === '') return false;
      this.#publisher.working();
      publisher.delta(event.delta);
      this.#text += event.delta;
    } else if (event.type === 'status-update') {
      if (event.status === 'working') this.#publisher.working();
      else if (event.status !== 'submitted') {
        this.#end(event);
        return true;
      }
    } else if (event.type === 'artifact-update') {
      publisher.artifact(artifactOf(event), event);
    } else if (event.type !== 'message') {
      const parts = progressParts(event);
      if (parts === undefined) return false;
      this.#publisher.working();
      publisher.status(TaskState.TASK_STATE_WORKING, parts);
    }
    return false;
  }

  #end(event: TaskStatusUpdateEvent): void {
    const publisher = this.#publisher;
    if (event.status === 'completed') {
      const output = event.output ?? this.#text;
      if (output !== this.#text) publisher.output(output, { replace: true, lastChunk: true });
      publisher.status(TaskState.TASK_STATE_COMPLETED);
    } else if (event.status === 'canceled') {
      publisher.canceled();
    } else if (event.status === 'failed' && event.error !== undefined) {
      publisher.status(TaskState.TASK_STATE_FAILED, errorParts(event.error));
    } else {
      // A pause: its question is the status message, by the id the task's history has it under.
      const { message } = event;
      const parts = message === undefined ? undefined : a2aPartsOf(message.parts);
      publisher.status(a2aStateOf(event.status), parts, message?.messageId);
    }
  }

  /**
   * Catches up with a snapshot, after the log's retention dropped events this reading had not
   * read: the text it missed (or the whole text again, when it is not a continuation), then its
   * end when the snapshot is finished; true then.
   */
  catchUp(task: CoreTask): boolean {
    const output = task.output ?? '';
    if (output.startsWith(this.#text)) {
      if (output.length > this.#text.length) {
        this.#publisher.working();
        this.#publisher.delta(output.slice(this.#text.length));
      }
    } else {
      this.#publisher.working();
      this.#publisher.output(output, { replace: true });
    }
    this.#text = output;
    if (!isTerminalStatus(task.status) && !isInterruptedStatus(task.status)) return false;
    this.#end({
      type: 'status-update',
      status: task.status,
      timestamp: task.updatedAt,
      ...(task.statusMessage === undefined ? {} : { message: task.statusMessage }),
      ...(task.error === undefined ? {} : { error: task.error }),
    });
    return true;
  }

  /** The runner closed before the task ended: it is canceled (close cancels what it runs). */
  closed(): void {
    this.#publisher.canceled();
  }
}

/**
 * Publishes a core task's log after `after` on an SDK bus through `publisher`, until the task
 * ends (or pauses for its caller): its start, its text as the output artifact, tool calls and
 * handoffs as working-status messages, artifact chunks, and its end (completed with the final
 * output when it differs from the text streamed, failed with the error, canceled). A reading
 * that falls behind the log's retention (an agent far faster than the bus) goes on from a fresh
 * snapshot, the text it missed in one chunk.
 */
export async function publishTaskLog(
  runner: TaskRunner,
  task: Task,
  after: number,
  publisher: TaskPublisher,
  options: PublishLogOptions,
): Promise<void> {
  const reader = new LogPublisher(publisher, task, options.resumed, options.created);
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  let from = after;
  let known = options.created;
  for (;;) {
    try {
      const start = known === undefined ? {} : { task: known };
      known = undefined;
      for await (const { seq, event } of runner.follow(task.id, {
        after: from,
        ...signal,
        ...start,
      })) {
        from = seq;
        if (reader.apply(event)) return;
      }
      break;
    } catch (error) {
      if (!(error instanceof EventsExpiredError)) throw error;
      const snapshot = await runner.get(task.id);
      if (reader.catchUp(snapshot)) return;
      from = snapshot.seq;
    }
  }
  if (options.signal?.aborted === true) return;
  // The log ended without its end in it: the task paused before the reading began (a
  // subscription to a task waiting for input), or the runner closed (what it ran is canceled).
  const snapshot = await runner.get(task.id).catch(() => undefined);
  if (
    snapshot === undefined ||
    !isInterruptedStatus(snapshot.status) ||
    !reader.catchUp(snapshot)
  ) {
    reader.closed();
  }
}
