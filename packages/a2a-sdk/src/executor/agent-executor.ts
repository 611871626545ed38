import type { Message, Part, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import type { Agent, AgentEvent as CoreAgentEvent } from '@agentport/core';
import { CancellationError } from '@agentport/core';
import { checkedOutput, pacedEvents } from '@agentport/core/internal';
import { canceledTask, type MessageReplyRequest, replyToMessage } from './message-reply.ts';
import {
  agentMessage,
  dataPart,
  failureParts,
  outputArtifact,
  textOfParts,
  textPart,
} from './parts.ts';
import { DEFAULT_MAX_CONCURRENCY, RunSlots } from './run-slots.ts';
import { now } from './timestamp.ts';

interface Run {
  readonly controller: AbortController;
  readonly finished: Promise<void>;
  canceled: boolean;
}

/**
 * Publishes the events of one task on one bus, as few as it can: every event makes the SDK copy
 * the whole task (several times: store, result manager, push notifications). The first `task`
 * event waits until the end of the current tick, so it already carries the state `working` and
 * the text the agent produced meanwhile (a quick agent's whole answer); after it, text deltas that
 * arrive within the same tick are merged into one artifact update.
 */
class TaskPublisher {
  readonly #bus: ExecutionEventBus;
  readonly #taskId: string;
  readonly #contextId: string;
  /** The task, until its first event is published. */
  #pendingTask: Task | undefined;
  #artifactStarted = false;
  #pendingText = '';
  #flushScheduled: ReturnType<typeof setImmediate> | undefined;

  constructor(bus: ExecutionEventBus, taskId: string, contextId: string) {
    this.#bus = bus;
    this.#taskId = taskId;
    this.#contextId = contextId;
  }

  /** Opens the task (state `working`); its event leaves at the end of the tick or with the next one. */
  start(task: Task): void {
    this.#pendingTask = task;
    this.#schedule();
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
      this.#publishTask(task);
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

  status(state: TaskState, parts?: Part[]): void {
    this.flush();
    this.#publishStatus(state, parts);
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

  #publishStatus(state: TaskState, parts: Part[] | undefined): void {
    const message: Message | undefined =
      parts === undefined ? undefined : agentMessage(this.#taskId, this.#contextId, parts);
    this.#bus.publish(
      AgentEvent.statusUpdate({
        taskId: this.#taskId,
        contextId: this.#contextId,
        status: { state, message, timestamp: now() },
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

function progressParts(event: CoreAgentEvent): Part[] | undefined {
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

function newTask(requestContext: RequestContext): Task {
  return {
    id: requestContext.taskId,
    contextId: requestContext.contextId,
    status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
    artifacts: [],
    history: [requestContext.userMessage],
    metadata: undefined,
  };
}

async function runTask(
  agent: Agent,
  requestContext: RequestContext,
  publisher: TaskPublisher,
  run: Run,
): Promise<void> {
  const { taskId, contextId } = requestContext;
  const input = textOfParts(requestContext.userMessage.parts);
  let streamed = '';
  const events = pacedEvents(
    agent.stream(input, { signal: run.controller.signal, metadata: { taskId, contextId } }),
  );
  for await (const event of events) {
    if (event.type === 'text-delta') {
      if (event.delta === '') continue;
      publisher.delta(event.delta);
      streamed += event.delta;
    } else if (event.type === 'done') {
      const output = checkedOutput(event.output, agent.name);
      if (output !== streamed) publisher.output(output, { replace: true, lastChunk: true });
      publisher.status(TaskState.TASK_STATE_COMPLETED);
      return;
    } else if (event.type === 'error') {
      if (run.canceled) {
        publisher.canceled();
      } else {
        publisher.status(TaskState.TASK_STATE_FAILED, [textPart(event.message), dataPart(event)]);
      }
      return;
    } else {
      publisher.status(TaskState.TASK_STATE_WORKING, progressParts(event));
    }
  }
  publisher.status(TaskState.TASK_STATE_FAILED, [
    textPart(`Agent '${agent.name}' ended without a result`),
  ]);
}

/** Options of {@link createAgentExecutor}. */
export interface AgentExecutorOptions {
  /**
   * How many runs of the agent (tasks and message answers) go at once (default 16, an integer of
   * at least 1); the others wait their turn, first come first served, a task in `submitted`.
   */
  maxConcurrency?: number;
}

/** An executor that can also answer with a message, and cancel everything it runs (at shutdown). */
export interface ClosableAgentExecutor extends AgentExecutor {
  /**
   * Runs the agent to its end and answers with a Message holding its output, without a task; a
   * run that fails or is canceled answers with its failed or canceled Task instead (to store).
   * The agent is aborted when `request.signal` is.
   */
  reply(request: MessageReplyRequest): Promise<Message | Task>;
  /**
   * Cancels every running task and reply: each ends canceled and its agent's signal is aborted.
   * Runs asked for afterwards (a request whose body was still coming in) end canceled at once,
   * without running the agent.
   */
  close(): void;
}

/**
 * Creates the SDK executor that runs a core agent for each A2A task: it publishes the task, moves
 * it to working, appends text deltas to the `output` artifact, shows tool calls, tool results and
 * handoffs as working-status messages, and ends the task completed (final output), failed (agent
 * error) or canceled (CancelTask aborts the agent's signal). At most `maxConcurrency` runs go at
 * once: a task that waits for its turn is published `submitted`, says `working` when it starts,
 * and CancelTask ends it canceled without running the agent.
 *
 * @example
 * const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), createAgentExecutor(agent));
 */
export function createAgentExecutor(
  agent: Agent,
  options: AgentExecutorOptions = {},
): ClosableAgentExecutor {
  const slots = new RunSlots(options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY);
  const runs = new Map<string, Run>();
  /** The runs answering with a message (they have no task id). */
  const replies = new Set<AbortController>();
  let closed = false;

  function cancelReply(controller: AbortController): void {
    controller.abort(new CancellationError('The run was canceled'));
  }

  function cancel(run: Run): void {
    run.canceled = true;
    run.controller.abort(new CancellationError('The task was canceled'));
  }

  return {
    close() {
      closed = true;
      for (const run of runs.values()) cancel(run);
      for (const controller of replies) cancelReply(controller);
    },

    async reply(request) {
      const controller = new AbortController();
      const caller = request.signal;
      const onAbort = () => controller.abort(new CancellationError('The caller went away'));
      if (caller?.aborted) onAbort();
      else caller?.addEventListener('abort', onAbort, { once: true });
      if (closed) cancelReply(controller);
      replies.add(controller);
      let holding = slots.tryAcquire();
      try {
        if (!holding) {
          // A waiting reply leaves the queue when its caller goes away (or at close()).
          holding = await slots.acquire(controller.signal);
          if (!holding) return canceledTask(request, '');
        }
        return await replyToMessage(agent, request, controller.signal);
      } finally {
        if (holding) slots.release();
        replies.delete(controller);
        caller?.removeEventListener('abort', onAbort);
      }
    },

    async execute(requestContext, eventBus) {
      const { taskId, contextId } = requestContext;
      const current = runs.get(taskId);
      if (current !== undefined) {
        // A follow-up message to a task that is still running joins it: this request's queue
        // sees the running agent's events on the shared bus until the task ends.
        await current.finished;
        return;
      }
      let markFinished = () => {};
      const run: Run = {
        controller: new AbortController(),
        finished: new Promise<void>((resolve) => {
          markFinished = resolve;
        }),
        canceled: false,
      };
      // Closed: it ends canceled at once (the agent's run is never started on an aborted signal).
      if (closed) cancel(run);
      runs.set(taskId, run);
      const publisher = new TaskPublisher(eventBus, taskId, contextId);
      const task = requestContext.task ?? newTask(requestContext);
      let holding = slots.tryAcquire();
      try {
        if (holding) publisher.start(task);
        else {
          publisher.wait(task);
          // CancelTask (or close()) of a waiting task takes it out of the queue: it never runs.
          holding = await slots.acquire(run.controller.signal);
          if (!holding) {
            publisher.canceled();
            return;
          }
          publisher.resume();
        }
        await runTask(agent, requestContext, publisher, run);
      } catch (error) {
        // Never let a raw error reach the SDK: it would put its message on the wire.
        publisher.status(TaskState.TASK_STATE_FAILED, failureParts(error, agent.name));
      } finally {
        if (holding) slots.release();
        runs.delete(taskId);
        markFinished();
      }
    },

    async cancelTask(taskId, eventBus) {
      const run = runs.get(taskId);
      if (run !== undefined) {
        cancel(run);
        return;
      }
      // Nothing runs here for this task (it is ending): the SDK waits for a final event.
      eventBus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: '',
          status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() },
          metadata: undefined,
        }),
      );
    },
  };
}
