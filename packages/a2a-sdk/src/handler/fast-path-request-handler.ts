import type {
  AgentCard,
  CancelTaskRequest,
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
  type AgentExecutor,
  DefaultRequestHandler,
  type DefaultRequestHandlerOptions,
  type ExecutionEventBusManager,
  type RequestContext,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import type { TaskRunner } from '@agentport/core';
import { randomUuid } from '@agentport/core/internal';
import { callerSignalOf } from './abortable-call-context.ts';
import { cancelInRunner } from './cancel-in-runner.ts';
import { checkContext } from './context-check.ts';
import { EventBatches } from './event-batches.ts';
import { answerSend, type Started, streamResponses } from './fast-path-answers.ts';
import { followTaskLog } from './follow-task-log.ts';
import { historyLengthError } from './history-length.ts';
import { checkNewMessage, emptyMessageError, failedStream } from './message-checks.ts';
import { type MessageReplier, replierOf } from './message-replier.ts';
import { executeOnBus, loadReferenceTasks } from './run-on-bus.ts';
import { type RunningTask, RunningTasks } from './running-tasks.ts';
import { applyHistoryLength } from './stream-events.ts';
import { subscribeToTask } from './subscribe-to-task.ts';
import { TaskProgress } from './task-progress.ts';

/** Options of {@link FastPathRequestHandler}: the SDK handler's, and how to answer messages. */
export interface FastPathRequestHandlerOptions extends DefaultRequestHandlerOptions {
  /**
   * How a blocking SendMessage that starts something new (no `taskId`) is answered: `'task'`
   * (default), through a task that is stored; or `'message'`, with a Message holding the agent's
   * output and no task (the executor must have a `reply`, as createAgentExecutor's has).
   * Streaming, non-blocking and follow-up messages always go through a task.
   */
  replyWith?: 'task' | 'message';
  /**
   * The core runner the store and the executor are over (`createCoreTaskStore(runner)`,
   * `createAgentExecutor({ agent, runner })`): CancelTask and SubscribeToTask then go through it,
   * so they work on every task of the runner, whichever surface created it. Without one, they are
   * the SDK's, over the store and the event buses.
   */
  runner?: TaskRunner;
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
 * const handler = new FastPathRequestHandler(
 *   card,
 *   createA2ATaskStore(),
 *   createAgentExecutor({ agent }),
 *   new ListenerExecutionEventBusManager(),
 * );
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
  readonly #runner: TaskRunner | undefined;

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
    this.#runner = options.runner;
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
      if (running !== undefined) return this.#followUp(running, params, context);
      if (!params.message?.contextId) return super.sendMessage(params, context);
      return checkContext(this.#runner, params).then(() => super.sendMessage(params, context));
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
      if (!params.message?.contextId) return super.sendMessageStream(params, context);
      return this.#checkedSdkStream(params, context);
    }
    return streamResponses(() => this.#begin(params, context), params, context);
  }

  /** The SDK's stream of a message, once its context has been checked (see checkContext). */
  async *#checkedSdkStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    await checkContext(this.#runner, params);
    yield* super.sendMessageStream(params, context);
  }

  /** The SDK's resubscribe, except that it stops when the caller goes (see subscribeToTask). */
  override resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const streaming = this.#card.capabilities?.streaming === true;
    if (this.#runner !== undefined) return followTaskLog(streaming, this.#runner, params, context);
    return subscribeToTask(streaming, this.#store, this.#buses, params, context);
  }

  /**
   * With a runner, the runner's cancel: the task ends canceled in its store and its agent is
   * aborted wherever it runs; a finished task is TaskNotCancelable, an unknown one TaskNotFound.
   */
  override cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const runner = this.#runner;
    if (runner === undefined) return super.cancelTask(params, context);
    return cancelInRunner(runner, params.id);
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
    const named = Boolean(message.contextId);
    const result = await replier.reply({ message, contextId, signal, named });
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

  /** Answers a new message on the fast path (see answerSend). */
  async #send(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    return answerSend(await this.#begin(params, context), params, context);
  }

  /** Loads the message's reference tasks, then starts its run (see #start). */
  async #begin(params: SendMessageRequest, context: ServerCallContext): Promise<Started> {
    if (params.message?.contextId) await checkContext(this.#runner, params);
    const referenceTasks = await loadReferenceTasks(this.#store, params, context);
    return this.#start(params, context, referenceTasks);
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
    // A task that starts a conversation names it, as core's tasks do (and no store is read).
    const contextId = message.contextId || taskId;
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
