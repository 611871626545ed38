import type { Message, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import { TaskState as State } from '@a2a-js/sdk';
import {
  A2AError,
  RequestMalformedError,
  type UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { AgentExecutionEvent, ServerCallContext } from '@a2a-js/sdk/server';
import { onCallerGone } from './abortable-call-context.ts';
import type { EventBatches } from './event-batches.ts';
import {
  applyHistoryLength,
  orderingViolation,
  type StreamPattern,
  toStreamResponse,
} from './stream-events.ts';
import { type TaskProgress, TERMINAL_STATES } from './task-progress.ts';

/** A request being served on the fast path: its events on the task's bus and its task state. */
export interface Started {
  readonly batches: EventBatches;
  readonly progress: TaskProgress;
  /** Ends the request's consumption of the task's events (it saves no more). */
  stop(): void;
  /** Saves the task as it is now; a save the store refuses (full) cancels the run first. */
  save(context: ServerCallContext): Promise<void>;
  /** Cancels the run (the agent is aborted, the task ends canceled); never rejects. */
  cancel(): void;
}

/** How a SendMessage asked to be answered. */
interface SendAnswer {
  readonly blocking: boolean;
  readonly historyLength: number | undefined;
}

/**
 * The answer due before a batch ends, as the task was right after `event`: the first task or
 * message when not blocking, the task at AUTH_REQUIRED when blocking (as the SDK: a blocking
 * call answers there and the task goes on); undefined when none is due yet.
 */
function earlyAnswer(
  progress: TaskProgress,
  event: AgentExecutionEvent,
  answer: SendAnswer,
): Message | Task | undefined {
  const { task, message } = progress;
  if (!answer.blocking) {
    if (message !== undefined) return message;
    return task === undefined ? undefined : applyHistoryLength({ ...task }, answer.historyLength);
  }
  if (
    task !== undefined &&
    event.kind === 'statusUpdate' &&
    event.data.status?.state === State.TASK_STATE_AUTH_REQUIRED
  ) {
    return applyHistoryLength({ ...task }, answer.historyLength);
  }
  return undefined;
}

/** The answer once the run's events are all read, or the error a run without a result gets. */
function finalAnswer(progress: TaskProgress, answer: SendAnswer): Message | Task | Error {
  const result = progress.message ?? progress.task;
  if (result === undefined) {
    return answer.blocking
      ? new A2AError('Agent execution finished without a result, and no task context found.')
      : new RequestMalformedError('Execution finished before a message or task was produced.');
  }
  return result === progress.task ? applyHistoryLength(result, answer.historyLength) : result;
}

/**
 * Answers a SendMessage served on the fast path: reads its run's events in batches, applies and
 * saves each batch, and answers with the first task or message (not blocking), the task at
 * AUTH_REQUIRED or once it ends (blocking). A blocking call's caller is the only one told of its
 * task: when they leave before the answer, the task is canceled (as the hand-rolled surface's
 * create-and-wait does). A caller of a non-blocking or streaming call has the id and may come back
 * for it.
 */
export function answerSend(
  started: Started,
  params: SendMessageRequest,
  context: ServerCallContext,
): Promise<Message | Task> {
  const { batches, progress, stop, save, cancel } = started;
  const answer: SendAnswer = {
    blocking: params.configuration?.returnImmediately !== true,
    historyLength: params.configuration?.historyLength,
  };
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
    const respond = (result: Message | Task) => {
      answered = true;
      resolve(result);
    };
    if (answer.blocking) onCallerGone(context, onLeave);
    const drain = async () => {
      try {
        for (let batch = await batches.next(); batch; batch = await batches.next()) {
          let changed = false;
          let early: Message | Task | undefined;
          for (const event of batch) {
            if (progress.apply(event)) changed = true;
            if (!answered && early === undefined) early = earlyAnswer(progress, event, answer);
          }
          if (changed && progress.task) await save(context);
          if (early !== undefined) respond(early);
        }
      } finally {
        drained = true;
        stop();
      }
      if (answered) return;
      const result = finalAnswer(progress, answer);
      if (result instanceof Error) reject(result);
      else respond(result);
    };
    drain().catch((error: unknown) => {
      if (!answered) reject(error);
      else console.error(`Event processing failed for task ${progress.task?.id}:`, error);
    });
  });
}

/**
 * The events of a SendStreamingMessage served on the fast path, its run started (`start`) when
 * the first is asked for: each batch of the run's events is applied, saved once, then its events
 * are sent (each `task` event as the task was right after it), so a client never sees an unsaved
 * event; events out of the SDK's order end the stream with the SDK's error.
 */
export async function* streamResponses(
  start: () => Promise<Started>,
  params: SendMessageRequest,
  context: ServerCallContext,
): AsyncGenerator<StreamResponse, void, undefined> {
  const { batches, progress, stop, save } = await start();
  const historyLength = params.configuration?.historyLength;
  let pattern: StreamPattern = 'undetermined';
  try {
    for (let batch = await batches.next(); batch; batch = await batches.next()) {
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
