import type { Message, Part, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { TaskNotFoundError as A2ATaskNotFoundError } from '@a2a-js/sdk/errors';
import {
  type AgentRunOptions,
  type Conversation,
  type Message as CoreMessage,
  type Task as CoreTask,
  agentMessage as coreAgentMessage,
  type InputRequiredEvent,
  TaskNotFoundError,
  TaskNotWaitingError,
  type TaskRunner,
} from '@agentport/core';
import {
  checkedOutput,
  pacedEvents,
  pauseAsTask,
  randomUuid,
  readConversation,
} from '@agentport/core/internal';
import { a2aTaskOf, coreMessageOf } from '../store/task-view.ts';
import { agentMessage, dataPart, failureParts, outputArtifact, textPart } from './parts.ts';
import { now } from './timestamp.ts';

/** A message to answer with a message: what the caller sent, in which conversation. */
export interface MessageReplyRequest {
  /** The caller's message (no `taskId`). */
  readonly message: Message;
  /** The conversation: the message's `contextId`, or a new one. */
  readonly contextId: string;
  /** Whether the caller named the conversation (sent a `contextId`): its history is read then. */
  readonly named?: boolean | undefined;
  /** Aborted when the caller goes away: the agent is aborted and nothing is kept. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The task that tells how a run answered with a message ended instead: `failed` (or `canceled`)
 * with the reason as its status message (also in its history, after the caller's message), and
 * the text produced before the end as its `output` artifact.
 */
function endedTask(
  request: MessageReplyRequest,
  state: TaskState,
  parts: Part[],
  streamed: string,
): Task {
  const { contextId } = request;
  const id = randomUuid();
  const message = agentMessage(id, contextId, parts);
  return {
    id,
    contextId,
    status: { state, message, timestamp: now() },
    artifacts: streamed === '' ? [] : [outputArtifact(streamed)],
    history: [{ ...request.message, contextId, taskId: id }, message],
    metadata: undefined,
  };
}

/** The task that tells a run answering with a message was canceled, with what it had produced. */
export function canceledTask(request: MessageReplyRequest, streamed: string): Task {
  return endedTask(
    request,
    TaskState.TASK_STATE_CANCELED,
    [textPart('The run was canceled')],
    streamed,
  );
}

/**
 * Stores the task a run answering with a message became by pausing (as core's `converse` does):
 * `input-required`, the caller's message and the question in its history, the pause's schema and
 * state kept for the resume (never shown); the conversation points at it, so the next message of
 * the context (or one naming the task) answers it.
 */
async function pausedTask(
  runner: TaskRunner,
  request: MessageReplyRequest,
  message: CoreMessage,
  end: InputRequiredEvent,
): Promise<Task> {
  const paused = await pauseAsTask(runner.store, runner.conversations, {
    agentName: runner.agent.name,
    contextId: request.contextId,
    message,
    end,
    metadata: {},
  });
  return a2aTaskOf(paused);
}

/** How many earlier messages of its conversation a message answer's run is handed at most. */
const MAX_HISTORY = 100;

/**
 * Answers the task of a conversation that waits for input with the caller's message, through
 * the runner (the agent runs again with its state and the history), and waits for it: a Message
 * with the output once completed, else the task as it is (paused again, failed, canceled).
 * Undefined when the task does not wait any more (the message then starts a new turn).
 */
async function answerWaiting(
  runner: TaskRunner,
  request: MessageReplyRequest,
  taskId: string,
  message: CoreMessage,
  signal: AbortSignal,
): Promise<Message | Task | undefined> {
  let task: CoreTask;
  try {
    task = await runner.resumeAndWait(taskId, message, { signal });
  } catch (error) {
    if (error instanceof TaskNotWaitingError || error instanceof TaskNotFoundError)
      return undefined;
    throw error;
  }
  if (task.status !== 'completed') return a2aTaskOf(task);
  return agentMessage('', request.contextId, [textPart(task.output ?? '')]);
}

/**
 * The conversation a caller named, its newest messages; TaskNotFound (the SDK's error) when it
 * is another agent's, as for a task of another agent.
 */
async function conversationOf(
  runner: TaskRunner,
  contextId: string,
): Promise<Conversation | undefined> {
  const conversation = await readConversation(runner.store, runner.conversations, contextId, {
    limit: MAX_HISTORY,
  });
  if (conversation !== undefined && conversation.agentName !== runner.agent.name) {
    throw new A2ATaskNotFoundError(`Context not found: ${contextId}`);
  }
  return conversation;
}

/**
 * Runs an agent to its end on a message (all its parts) and answers with an agent Message
 * holding its output (in the message's conversation, without a task; the turn is recorded in
 * the conversation when the caller named it). A conversation the caller named is read first (another agent's is
 * TaskNotFound): a task of it waiting for input is answered (see answerWaiting), else the run
 * gets its history. When the run pauses, the
 * answer is the task it became, in `input-required`; when it fails or is canceled, the failed or
 * canceled Task, as a task-answering agent would end.
 */
export async function replyToMessage(
  runner: TaskRunner,
  request: MessageReplyRequest,
  signal: AbortSignal,
): Promise<Message | Task> {
  const { agent } = runner;
  const { contextId } = request;
  const message = coreMessageOf(request.message);
  const options: AgentRunOptions = { signal, contextId };
  let streamed = '';
  // Read before the run: another agent's conversation is refused, not answered with a task.
  const conversation = request.named === true ? await conversationOf(runner, contextId) : undefined;
  try {
    if (conversation !== undefined) {
      const waiting = conversation.waitingTaskId;
      const answered =
        waiting === undefined
          ? undefined
          : await answerWaiting(runner, request, waiting, message, signal);
      if (answered !== undefined) return answered;
      options.history = conversation.messages;
    }
    for await (const event of pacedEvents(agent.stream(message, options))) {
      if (event.type === 'text-delta') streamed += event.delta;
      else if (event.type === 'done') {
        const output = checkedOutput(event.output, agent.name);
        // Only a conversation the caller named is recorded: an append costs ~6 µs of a ~90 µs
        // answer, which the fast path of a message without contextId does not pay.
        if (request.named === true) {
          await runner.conversations.append(contextId, {
            agentName: agent.name,
            messages: [message, coreAgentMessage(output)],
          });
        }
        return agentMessage('', contextId, [textPart(output)]);
      } else if (event.type === 'input-required') {
        return await pausedTask(runner, request, message, event);
      } else if (event.type === 'error') {
        if (signal.aborted) return canceledTask(request, streamed);
        return endedTask(
          request,
          TaskState.TASK_STATE_FAILED,
          [textPart(event.message), dataPart(event)],
          streamed,
        );
      }
    }
    return endedTask(
      request,
      TaskState.TASK_STATE_FAILED,
      [textPart(`Agent '${agent.name}' ended without a result`)],
      streamed,
    );
  } catch (error) {
    if (signal.aborted) return canceledTask(request, streamed);
    // Never put a raw error's message on the wire: it may say more than the caller should know.
    const parts = failureParts(error, agent.name);
    return endedTask(request, TaskState.TASK_STATE_FAILED, parts, streamed);
  }
}
