import type { Artifact, Message, Part, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { AgentEvent, type ExecutionEventBus } from '@a2a-js/sdk/server';
import { agentMessage, OUTPUT_ARTIFACT_ID, outputArtifact, textPart } from './parts.ts';
import { now } from './timestamp.ts';

/**
 * Publishes the events of one task on one bus, as few as it can: every event makes the SDK copy
 * the whole task (several times: store, result manager, push notifications). The first `task`
 * event waits until the end of the current tick, so it already carries the state `working` and
 * the text the agent produced meanwhile (a quick agent's whole answer); after it, text deltas that
 * arrive within the same tick are merged into one artifact update.
 */
export class TaskPublisher {
  readonly #bus: ExecutionEventBus;
  readonly #taskId: string;
  readonly #contextId: string;
  /** The task, until its first event is published. */
  #pendingTask: Task | undefined;
  /** Whether the pending task's run has started (its event then says `working`). */
  #started = false;
  /** Whether its event said `submitted`, its run not started then ({@link working} says so). */
  #waiting = false;
  #artifactStarted = false;
  #pendingText = '';
  #flushScheduled: ReturnType<typeof setImmediate> | undefined;

  constructor(bus: ExecutionEventBus, taskId: string, contextId: string) {
    this.#bus = bus;
    this.#taskId = taskId;
    this.#contextId = contextId;
  }

  /**
   * Opens a task whose run may not start at once: its event leaves at the end of the tick (or with
   * the next other event), `working` if {@link working} was called by then, else `submitted`.
   */
  begin(task: Task): void {
    this.#pendingTask = task;
    this.#schedule();
  }

  /** The task's run started: its event says so, or a status update does if it said `submitted`. */
  working(): void {
    if (this.#pendingTask !== undefined) this.#started = true;
    else if (this.#waiting) {
      this.#waiting = false;
      this.resume();
    }
  }

  /**
   * Opens a task that waits for a slot: its event leaves at once, in state `submitted` (a task
   * being resumed keeps its event and says `submitted` apart); {@link resume} when it may run.
   */
  wait(task: Task): void {
    this.#bus.publish(AgentEvent.task(task));
    if (task.status?.state !== TaskState.TASK_STATE_SUBMITTED) {
      this.#publishStatus(TaskState.TASK_STATE_SUBMITTED, undefined);
    }
  }

  /** Publishes the task's event as it is (a task already under way, read from its store). */
  open(task: Task): void {
    this.#bus.publish(AgentEvent.task(task));
    this.#artifactStarted = (task.artifacts ?? []).some(
      ({ artifactId }) => artifactId === OUTPUT_ARTIFACT_ID,
    );
  }

  /** The waiting task got its slot: it says `working`, in a status update. */
  resume(): void {
    this.#publishStatus(TaskState.TASK_STATE_WORKING, undefined);
  }

  /** Queues a text delta; it is published at the end of the tick or before the next other event. */
  delta(text: string): void {
    this.#pendingText += text;
    this.#schedule();
  }

  #schedule(): void {
    this.#flushScheduled ??= setImmediate(() => {
      this.#flushScheduled = undefined;
      this.flush();
    });
  }

  /** Publishes the pending task event, then the queued text deltas as one appended update. */
  flush(): void {
    if (this.#flushScheduled !== undefined) clearImmediate(this.#flushScheduled);
    this.#flushScheduled = undefined;
    const task = this.#pendingTask;
    if (task !== undefined) {
      this.#pendingTask = undefined;
      if (this.#started) this.#publishTask(task);
      else {
        this.#waiting = true;
        this.wait(task);
      }
    }
    if (this.#pendingText === '') return;
    const text = this.#pendingText;
    this.#pendingText = '';
    this.output(text);
  }

  #publishTask(task: Task): void {
    const resumed = task.status?.state !== TaskState.TASK_STATE_SUBMITTED;
    const working: Task = {
      ...task,
      status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() },
    };
    if (!resumed && this.#pendingText !== '') {
      working.artifacts = [outputArtifact(this.#pendingText)];
      this.#pendingText = '';
      this.#artifactStarted = true;
    }
    this.#bus.publish(AgentEvent.task(resumed ? task : working));
    // A follow-up to an existing task keeps that task's event as it is and says `working` apart.
    if (resumed) this.#publishStatus(TaskState.TASK_STATE_WORKING, undefined);
  }

  /** Publishes a status update; `messageId` names its status message (a question's, say). */
  status(state: TaskState, parts?: Part[], messageId?: string): void {
    this.flush();
    this.#publishStatus(state, parts, messageId);
  }

  /**
   * Ends a canceled task: the text not yet published is dropped, and only the final status goes
   * out. The SDK's CancelTask reads the task's bus with a result manager of its own, made before
   * the cancel reaches the executor, and every result manager applies an appended chunk to the
   * stored task: a chunk published after the cancel would be stored twice.
   */
  canceled(): void {
    this.#pendingText = '';
    this.status(TaskState.TASK_STATE_CANCELED, [textPart('The task was canceled')]);
  }

  #publishStatus(state: TaskState, parts: Part[] | undefined, messageId?: string): void {
    let message: Message | undefined;
    if (parts !== undefined) {
      message = agentMessage(this.#taskId, this.#contextId, parts);
      if (messageId !== undefined) message.messageId = messageId;
    }
    this.#bus.publish(
      AgentEvent.statusUpdate({
        taskId: this.#taskId,
        contextId: this.#contextId,
        status: { state, message, timestamp: now() },
        metadata: undefined,
      }),
    );
  }

  /** Publishes a chunk of an artifact other than the output, after the text queued before it. */
  artifact(artifact: Artifact, chunk: { append: boolean; lastChunk: boolean }): void {
    this.flush();
    this.#bus.publish(
      AgentEvent.artifactUpdate({
        taskId: this.#taskId,
        contextId: this.#contextId,
        artifact,
        append: chunk.append,
        lastChunk: chunk.lastChunk,
        metadata: undefined,
      }),
    );
  }

  /** Appends text to the output artifact; `replace` starts it over with `text`. */
  output(text: string, options: { replace?: boolean; lastChunk?: boolean } = {}): void {
    if (options.replace === true) this.#pendingText = '';
    if (this.#pendingTask !== undefined) this.flush();
    this.#bus.publish(
      AgentEvent.artifactUpdate({
        taskId: this.#taskId,
        contextId: this.#contextId,
        artifact: outputArtifact(text),
        append: this.#artifactStarted && options.replace !== true,
        lastChunk: options.lastChunk ?? false,
        metadata: undefined,
      }),
    );
    this.#artifactStarted = true;
  }
}
