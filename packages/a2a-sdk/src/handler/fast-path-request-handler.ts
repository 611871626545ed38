import type {
  AgentCard,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskState,
} from '@a2a-js/sdk';
import { TaskState as State } from '@a2a-js/sdk';
import {
  A2AError,
  RequestMalformedError,
  type UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import {
  type AgentExecutor,
  DefaultRequestHandler,
  type DefaultRequestHandlerOptions,
  type ExecutionEventBusManager,
  type RequestContext,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { randomUuid } from '@agentport/core/internal';
import { callerSignalOf, onCallerGone } from './abortable-call-context.ts';
import { EventBatches } from './event-batches.ts';
import { historyLengthError } from './history-length.ts';
import { checkNewMessage, emptyMessageError, failedStream } from './message-checks.ts';
import { type MessageReplier, replierOf } from './message-replier.ts';
import { executeOnBus, loadReferenceTasks } from './run-on-bus.ts';
import { type RunningTask, RunningTasks } from './running-tasks.ts';
import {
  applyHistoryLength,
  orderingViolation,
  type StreamPattern,
  toStreamResponse,
} from './stream-events.ts';
import { subscribeToTask } from './subscribe-to-task.ts';
import { TaskProgress, TERMINAL_STATES } from './task-progress.ts';

/** A request being served on the fast path: its events on the task's bus and its task state. */
interface Started {
  readonly batches: EventBatches;
  readonly progress: TaskProgress;
  /** Ends the request's consumption of the task's events (it saves no more). */
  stop(): void;
  /** Saves the task as it is now; a save the store refuses (full) cancels the run first. */
  save(context: ServerCallContext): Promise<void>;
  /** Cancels the run (the agent is aborted, the task ends canceled); never rejects. */
  cancel(): void;
}

/** Options of {@link FastPathRequestHandler}: the SDK handler's, and how to answer messages. */
export interface FastPathRequestHandlerOptions extends DefaultRequestHandlerOptions {
  /**
   * How a blocking SendMessage that starts something new (no `taskId`) is answered: `'task'`
   * (default), through a task that is stored; or `'message'`, with a Message holding the agent's
   * output and no task (the executor must have a `reply`, as createAgentExecutor's has).
   * Streaming, non-blocking and follow-up messages always go through a task.
   */
  replyWith?: 'task' | 'message';
}

/**
 * The SDK's `DefaultRequestHandler`, with its own path for the common case: a message that starts
 * a new task (no `taskId`, no push-notification config). There the task is
 * built once and updated in place by each event, and saved to the store after each change, without
 * the SDK's deep copies of the request, the user message, each task event and (for push
 * notifications, even when they are off) the whole task on every event. Resubscribing is the
 * SDK's, except that it stops when the caller goes away. Everything else (follow-up messages,
 * push configs, GetTask, ListTasks, CancelTask, the extended card) is the SDK's own code over the
 * same store and event buses, once a `historyLength` that is not a non-negative integer has been
 * refused.
 *
 * @example
 * const handler = new FastPathRequestHandler(card, createA2ATaskStore(), createAgentExecutor(agent),
 *   new ListenerExecutionEventBusManager());
 */
export class FastPathRequestHandler extends DefaultRequestHandler {
  readonly #card: AgentCard;
  readonly #store: TaskStore;
  readonly #executor: AgentExecutor;
  readonly #buses: ExecutionEventBusManager;
  readonly #keepBusAlive: ReadonlySet<TaskState>;
  readonly #validateInputModes: boolean;
  /** Answers blocking messages that start something new with a message, when asked to. */
  readonly #replier: MessageReplier | undefined;
  /** The tasks this handler's fast path is consuming events of (and saving), by scope and id. */
  readonly #running = new RunningTasks();

  constructor(
    card: AgentCard,
    taskStore: TaskStore,
    executor: AgentExecutor,
    eventBusManager: ExecutionEventBusManager,
    options: FastPathRequestHandlerOptions = {},
  ) {
    super(
      card,
      taskStore,
      executor,
      eventBusManager,
      undefined,
      undefined,
      undefined,
      undefined,
      options,
    );
    this.#card = card;
    this.#store = taskStore;
    this.#executor = executor;
    this.#buses = eventBusManager;
    this.#keepBusAlive = new Set(
      options.keepBusAliveStates ?? [
        State.TASK_STATE_INPUT_REQUIRED,
        State.TASK_STATE_AUTH_REQUIRED,
      ],
    );
    this.#validateInputModes = options.validateInputModes ?? false;
    this.#replier = replierOf(executor, options.replyWith ?? 'task');
  }

  override sendMessage(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Message | Task> {
    const refused =
      emptyMessageError(params) ?? historyLengthError(params.configuration?.historyLength);
    if (refused !== undefined) return Promise.reject(refused);
    if (this.#replier !== undefined && this.#repliesWithMessage(params)) {
      return this.#reply(this.#replier, params, context);
    }
    if (!this.#isNewWithoutPush(params)) {
      const running = this.#joinRunning(params, context);
      return running === undefined
        ? super.sendMessage(params, context)
        : this.#followUp(running, params, context);
    }
    return this.#send(params, context);
  }

  override sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const refused =
      emptyMessageError(params) ?? historyLengthError(params.configuration?.historyLength);
    if (refused !== undefined) return failedStream(refused);
    if (this.#card.capabilities?.streaming !== true || !this.#isNewWithoutPush(params)) {
      if (this.#card.capabilities?.streaming === true) this.#joinRunning(params, context);
      return super.sendMessageStream(params, context);
    }
    return this.#stream(params, context);
  }

  /** The SDK's resubscribe, except that it stops when the caller goes (see subscribeToTask). */
  override resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const streaming = this.#card.capabilities?.streaming === true;
    return subscribeToTask(streaming, this.#store, this.#buses, params, context);
  }

  override getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    const refused = historyLengthError(params.historyLength);
    return refused === undefined ? super.getTask(params, context) : Promise.reject(refused);
  }

  override listTasks(
    params: ListTasksRequest,
    context: ServerCallContext,
  ): Promise<ListTasksResponse> {
    const refused = historyLengthError(params.historyLength);
    return refused === undefined ? super.listTasks(params, context) : Promise.reject(refused);
  }

  /**
   * Joins a follow-up message to the running task it names, whose first request is served here
   * (that request's copy saves it next); undefined when none takes it (the SDK's path answers).
   */
  #joinRunning(params: SendMessageRequest, context: ServerCallContext): RunningTask | undefined {
    const message = params.message;
    if (!message?.messageId || !message.taskId) return undefined;
    const running = this.#running.get(message.taskId, context);
    try {
      if (running) checkNewMessage(this.#card, this.#validateInputModes, message, context);
    } catch {
      return undefined; // The SDK's path refuses it the same way, and says so.
    }
    return running?.progress.join(message) === true ? running : undefined;
  }

  /**
   * Answers a joined follow-up: not blocking, with the task as it is; else with the task saved
   * once it ends. (The SDK's path would apply its events to a second copy: chunks stored twice.)
   */
  async #followUp(
    running: RunningTask,
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Task> {
    const historyLength = params.configuration?.historyLength;
    const blocking = params.configuration?.returnImmediately !== true;
    if (blocking) await this.#running.ended(running);
    const task = running.progress.task as Task;
    const saved = blocking ? await this.#store.load(task.id, context) : undefined;
    return applyHistoryLength(saved ?? { ...task }, historyLength);
  }

  /**
   * Whether a message is answered with a message (when replying with messages): a blocking
   * request whose message starts something new (reference tasks do not matter here, the agent
   * reads the message's text only).
   */
  #repliesWithMessage(params: SendMessageRequest): boolean {
    return this.#isNewWithoutPush(params) && params.configuration?.returnImmediately !== true;
  }

  /**
   * Answers with the agent's output as a message, storing nothing; a run that fails (or is
   * canceled at shutdown) answers with its task, which is stored like any other. When the caller
   * goes away, the agent is aborted and nothing is stored.
   */
  async #reply(
    replier: MessageReplier,
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Message | Task> {
    const message = params.message as Message;
    checkNewMessage(this.#card, this.#validateInputModes, message, context);
    const signal = callerSignalOf(context);
    const contextId = message.contextId || randomUuid();
    const result = await replier.reply({ message, contextId, signal });
    if ('messageId' in result || signal?.aborted) return result;
    await this.#store.save(result, context);
    return applyHistoryLength(result, params.configuration?.historyLength);
  }

  /** A message with an id and no `taskId`, that needs no task for push notifications. */
  #isNewWithoutPush(params: SendMessageRequest): boolean {
    const message = params.message;
    return (
      message !== undefined &&
      Boolean(message.messageId) &&
      !message.taskId &&
      !(
        params.configuration?.taskPushNotificationConfig &&
        this.#card.capabilities?.pushNotifications
      )
    );
  }

  async #send(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const referenceTasks = await loadReferenceTasks(this.#store, params, context);
    const { batches, progress, stop, save, cancel } = this.#start(params, context, referenceTasks);
    const historyLength = params.configuration?.historyLength;
    const blocking = params.configuration?.returnImmediately !== true;
    // A blocking call's caller is the only one told of its task: when they leave before the
    // answer, the task is canceled (as the hand-rolled surface's create-and-wait does). A caller
    // of a non-blocking or streaming call has the id and may come back for it.
    return new Promise((resolve, reject) => {
      let answered = false;
      /** Whether the run's events have all been read: there is nothing left to cancel. */
      let drained = false;
      const onLeave = () => {
        // A task that has ended already (its answer on its way out) is left as it ended.
        const state = progress.task?.status?.state;
        if (answered || drained || (state !== undefined && TERMINAL_STATES.has(state))) return;
        cancel();
      };
      const answer = (result: Message | Task) => {
        answered = true;
        resolve(result);
      };
      if (blocking) onCallerGone(context, onLeave);
      const drain = async () => {
        try {
          for (let batch = await batches.next(); batch; batch = await batches.next()) {
            let changed = false;
            // The answer due before the batch ends, as the task was right after its event: the
            // first task or message when not blocking, the task at AUTH_REQUIRED when blocking.
            let early: Message | Task | undefined;
            for (const event of batch) {
              if (progress.apply(event)) changed = true;
              if (answered || early !== undefined) continue;
              const { task, message } = progress;
              if (!blocking) {
                if (message !== undefined) early = message;
                else if (task !== undefined) early = applyHistoryLength({ ...task }, historyLength);
              } else if (
                task !== undefined &&
                event.kind === 'statusUpdate' &&
                event.data.status?.state === State.TASK_STATE_AUTH_REQUIRED
              ) {
                // As the SDK: a blocking call answers at AUTH_REQUIRED and the task goes on.
                early = applyHistoryLength({ ...task }, historyLength);
              }
            }
            if (changed && progress.task) await save(context);
            if (early !== undefined) answer(early);
          }
        } finally {
          drained = true;
          stop();
        }
        if (answered) return;
        const result = progress.message ?? progress.task;
        if (result === undefined) {
          reject(
            blocking
              ? new A2AError(
                  'Agent execution finished without a result, and no task context found.',
                )
              : new RequestMalformedError(
                  'Execution finished before a message or task was produced.',
                ),
          );
        } else
          answer(result === progress.task ? applyHistoryLength(result, historyLength) : result);
      };
      drain().catch((error: unknown) => {
        if (!answered) reject(error);
        else console.error(`Event processing failed for task ${progress.task?.id}:`, error);
      });
    });
  }

  async *#stream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const referenceTasks = await loadReferenceTasks(this.#store, params, context);
    const { batches, progress, stop, save } = this.#start(params, context, referenceTasks);
    const historyLength = params.configuration?.historyLength;
    let pattern: StreamPattern = 'undetermined';
    try {
      for (let batch = await batches.next(); batch; batch = await batches.next()) {
        // Each event is applied, the batch saved once, then its events are sent (each `task`
        // event as the task was right after it), so a client never sees an unsaved event.
        const responses: StreamResponse[] = [];
        let violation: UnsupportedOperationError | undefined;
        let changed = false;
        for (const event of batch) {
          violation = orderingViolation(pattern, event);
          if (violation !== undefined) break;
          if (pattern === 'undetermined') pattern = event.kind === 'message' ? 'message' : 'task';
          if (progress.apply(event)) changed = true;
          if (event.kind === 'task' && progress.task !== undefined) {
            const value = applyHistoryLength({ ...progress.task }, historyLength);
            responses.push({ payload: { $case: 'task', value } });
          } else responses.push(toStreamResponse(event));
        }
        if (changed && progress.task) await save(context);
        yield* responses;
        if (violation !== undefined) throw violation;
      }
    } finally {
      stop();
    }
  }

  /** Checks the message as the SDK does for a new task, then starts the executor on its bus. */
  #start(
    params: SendMessageRequest,
    context: ServerCallContext,
    referenceTasks: Task[] | undefined,
  ): Started {
    const message = params.message as Message;
    checkNewMessage(this.#card, this.#validateInputModes, message, context);
    const taskId = randomUuid();
    const contextId = message.contextId || randomUuid();
    const userMessage: Message = { ...message, contextId, taskId };
    // The SDK's RequestContext deep-copies the request; the executor only reads it.
    const requestContext: RequestContext = {
      request: { ...params, message: userMessage },
      taskId,
      contextId,
      context,
      task: undefined,
      referenceTasks,
      userMessage,
    };
    const bus = this.#buses.createOrGetByTaskId(taskId, context);
    const batches = new EventBatches(bus);
    executeOnBus(this.#executor, this.#buses, this.#keepBusAlive, bus, requestContext);
    const progress = new TaskProgress(userMessage);
    const ended = this.#running.add(taskId, context, progress);
    const stop = () => {
      batches.stop();
      ended();
    };
    const cancel = () => void this.#executor.cancelTask(taskId, bus).catch(() => undefined);
    const save = async (saveContext: ServerCallContext) => {
      try {
        await this.#store.save(progress.task as Task, saveContext);
      } catch (error) {
        // Nobody will hear of this run (its request fails): it is not left running.
        cancel();
        throw error;
      }
    };
    return { batches, progress, stop, save, cancel };
  }
}
