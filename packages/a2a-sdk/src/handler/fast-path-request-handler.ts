import type {
  AgentCard,
  Message,
  SendMessageRequest,
  StreamResponse,
  Task,
  TaskState,
} from '@a2a-js/sdk';
import { TaskState as State } from '@a2a-js/sdk';
import {
  A2AError,
  ContentTypeNotSupportedError,
  ExtensionSupportRequiredError,
  RequestMalformedError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import {
  type AgentExecutionEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type DefaultRequestHandlerOptions,
  type ExecutionEventBus,
  type ExecutionEventBusManager,
  ExecutionEventQueue,
  type RequestContext,
  resolveUserScope,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { failureEvents } from './failure-events.ts';
import { TaskProgress } from './task-progress.ts';

/** A request being served on the fast path: its queue on the task's bus and its task state. */
interface Started {
  readonly queue: ExecutionEventQueue;
  readonly progress: TaskProgress;
  /** Ends the request's consumption of the task's events (it saves no more). */
  stop(): void;
}

function runningKey(taskId: string, context: ServerCallContext): string {
  return `${context.tenant ?? ''}\u0000${resolveUserScope(context)}\u0000${taskId}`;
}

function applyHistoryLength(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined) return task;
  return { ...task, history: historyLength <= 0 ? [] : (task.history ?? []).slice(-historyLength) };
}

function toStreamResponse(event: AgentExecutionEvent): StreamResponse {
  switch (event.kind) {
    case 'message':
      return { payload: { $case: 'message', value: event.data } };
    case 'statusUpdate':
      return { payload: { $case: 'statusUpdate', value: event.data } };
    case 'artifactUpdate':
      return { payload: { $case: 'artifactUpdate', value: event.data } };
    case 'task':
      return { payload: { $case: 'task', value: event.data } };
  }
}

/**
 * The SDK's `DefaultRequestHandler`, with its own path for the common case: a message that starts
 * a new task (no `taskId`, no reference tasks, no push-notification config). There the task is
 * built once and updated in place by each event, and saved to the store after each change, without
 * the SDK's deep copies of the request, the user message, each task event and (for push
 * notifications, even when they are off) the whole task on every event. Everything else
 * (follow-up messages, push configs, GetTask, ListTasks, CancelTask, resubscribing, the extended
 * card) is the SDK's own code over the same store and event buses.
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
  /** The tasks this handler's fast path is consuming events of (and saving), by scope and id. */
  readonly #running = new Map<string, TaskProgress>();

  constructor(
    card: AgentCard,
    taskStore: TaskStore,
    executor: AgentExecutor,
    eventBusManager: ExecutionEventBusManager,
    options: DefaultRequestHandlerOptions = {},
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
  }

  override sendMessage(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Message | Task> {
    if (!this.#startsNewTask(params)) {
      this.#joinRunning(params, context);
      return super.sendMessage(params, context);
    }
    return this.#send(params, context);
  }

  override sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    if (this.#card.capabilities?.streaming !== true || !this.#startsNewTask(params)) {
      if (this.#card.capabilities?.streaming === true) this.#joinRunning(params, context);
      return super.sendMessageStream(params, context);
    }
    return this.#stream(params, context);
  }

  /**
   * A follow-up message to a task whose first request is still being served here: the SDK adds
   * it to the stored task's history, and so must this request's own copy, which it saves next.
   */
  #joinRunning(params: SendMessageRequest, context: ServerCallContext): void {
    const message = params.message;
    if (!message?.messageId || !message.taskId) return;
    this.#running.get(runningKey(message.taskId, context))?.join(message);
  }

  #startsNewTask(params: SendMessageRequest): boolean {
    const message = params.message;
    return (
      message !== undefined &&
      Boolean(message.messageId) &&
      !message.taskId &&
      (message.referenceTaskIds ?? []).length === 0 &&
      !(
        params.configuration?.taskPushNotificationConfig &&
        this.#card.capabilities?.pushNotifications
      )
    );
  }

  async #send(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const { queue, progress, stop } = await this.#start(params, context);
    const historyLength = params.configuration?.historyLength;
    const blocking = params.configuration?.returnImmediately !== true;
    return new Promise((resolve, reject) => {
      let answered = false;
      const answer = (result: Message | Task) => {
        answered = true;
        resolve(result);
      };
      const drain = async () => {
        try {
          for await (const event of queue.events()) {
            if (progress.apply(event) && progress.task)
              await this.#store.save(progress.task, context);
            if (answered) continue;
            const { task, message } = progress;
            if (message !== undefined && !blocking) answer(message);
            else if (task !== undefined && !blocking)
              answer(applyHistoryLength({ ...task }, historyLength));
            else if (
              task !== undefined &&
              event.kind === 'statusUpdate' &&
              event.data.status?.state === State.TASK_STATE_AUTH_REQUIRED
            ) {
              // As the SDK: a blocking call answers at AUTH_REQUIRED and the task goes on.
              answer(applyHistoryLength({ ...task }, historyLength));
            }
          }
        } finally {
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
    const { queue, progress, stop } = await this.#start(params, context);
    let pattern: 'undetermined' | 'message' | 'task' = 'undetermined';
    try {
      for await (const event of queue.events()) {
        // The SDK's stream ordering rules: a message alone, or a task then its updates.
        if (pattern === 'message') {
          throw new UnsupportedOperationError(
            `Received ${event.kind} after message-only response.`,
          );
        }
        if (pattern === 'task' && (event.kind === 'task' || event.kind === 'message')) {
          throw new UnsupportedOperationError(
            `Stream ordering violation: received ${event.kind} in task lifecycle stream.`,
          );
        }
        if (pattern === 'undetermined') {
          if (event.kind === 'message') pattern = 'message';
          else if (event.kind === 'task') pattern = 'task';
          else {
            throw new UnsupportedOperationError(
              `Received ${event.kind} before initial 'Message'/'Task' event.`,
            );
          }
        }
        if (progress.apply(event) && progress.task) await this.#store.save(progress.task, context);
        if (event.kind === 'task' && progress.task !== undefined) {
          const value = applyHistoryLength(
            { ...progress.task },
            params.configuration?.historyLength,
          );
          yield { payload: { $case: 'task', value } };
        } else yield toStreamResponse(event);
      }
    } finally {
      stop();
    }
  }

  /** Checks the message as the SDK does for a new task, then starts the executor on its bus. */
  async #start(params: SendMessageRequest, context: ServerCallContext): Promise<Started> {
    const message = params.message as Message;
    const card = await this.getAgentCard();
    const inputModes = card.defaultInputModes ?? [];
    if (this.#validateInputModes && inputModes.length > 0) {
      for (const part of message.parts ?? []) {
        if (part.mediaType && !inputModes.includes(part.mediaType)) {
          throw new ContentTypeNotSupportedError(
            `Media type '${part.mediaType}' is not supported. Supported media types: ${inputModes.join(', ')}.`,
          );
        }
      }
    }
    const extensions = card.capabilities?.extensions ?? [];
    const requested = new Set(context.requestedExtensions ?? []);
    const missing = extensions.filter(
      (extension) => extension.required && !requested.has(extension.uri),
    );
    if (missing.length > 0) {
      throw new ExtensionSupportRequiredError(
        `Client must declare support for required extensions: ${missing.map((extension) => extension.uri).join(', ')}`,
      );
    }
    if (context.requestedExtensions) {
      const exposed = new Set(extensions.map((extension) => extension.uri));
      context.setRequestedExtensions(context.requestedExtensions.filter((uri) => exposed.has(uri)));
    }

    const taskId = crypto.randomUUID();
    const contextId = message.contextId || crypto.randomUUID();
    const userMessage: Message = { ...message, contextId, taskId };
    // The SDK's RequestContext deep-copies the request; the executor only reads it.
    const requestContext: RequestContext = {
      request: { ...params, message: userMessage },
      taskId,
      contextId,
      context,
      task: undefined,
      referenceTasks: undefined,
      userMessage,
    };
    const bus = this.#buses.createOrGetByTaskId(taskId, context);
    const queue = new ExecutionEventQueue(bus);
    this.#execute(bus, requestContext);
    const progress = new TaskProgress(userMessage);
    const key = runningKey(taskId, context);
    this.#running.set(key, progress);
    const stop = () => {
      queue.stop();
      this.#running.delete(key);
    };
    return { queue, progress, stop };
  }

  /** Runs the executor; a rejection fails the task on the bus; the bus is settled as the SDK does. */
  #execute(bus: ExecutionEventBus, requestContext: RequestContext): void {
    const { taskId, context } = requestContext;
    let lastTask: Task | undefined;
    let lastState: TaskState | undefined;
    const track = (event: AgentExecutionEvent) => {
      if (event.kind === 'task') lastTask = event.data;
      const state =
        event.kind === 'task' || event.kind === 'statusUpdate'
          ? event.data.status?.state
          : undefined;
      if (state !== undefined) lastState = state;
    };
    bus.on('event', track);
    this.#executor
      .execute(requestContext, bus)
      .catch((error: unknown) => {
        console.error(`Agent execution failed for task ${taskId}:`, error);
        for (const event of failureEvents(requestContext, lastTask, error)) bus.publish(event);
      })
      .finally(() => {
        bus.off('event', track);
        if (this.#buses.settleByTaskId?.(taskId, bus, lastState, context)) return;
        if (lastState !== undefined && this.#keepBusAlive.has(lastState)) return;
        bus.finished();
        this.#buses.cleanupByTaskId(taskId, context);
      });
  }
}
