import type { Agent, AgentInput, AgentRunOptions } from '../agent.ts';
import type { AgentEvent, ArtifactUpdateEvent } from '../agent-event.ts';
import {
  checkedOutput,
  endedWithoutResult,
  type TerminalEvent,
  terminalEventOf,
} from '../agent-output.ts';
import type { ConversationStore } from '../conversations/conversation-store.ts';
import { AgentFailureError } from '../errors/agent-failure-error.ts';
import { toAgentFailure } from '../errors/to-agent-failure.ts';
import { toAgentPortError } from '../errors/to-agentport-error.ts';
import { agentMessage, type Message, userMessage } from '../message.ts';
import { progressEventFault } from '../progress-event-fault.ts';
import { ProgressLog } from './progress-log.ts';
import { readConversation } from './read-conversation.ts';
import type { RunSlots } from './run-slots.ts';
import { hasOwnKeys, type Task } from './task.ts';
import { type TaskProgressEvent, taskProgressFault } from './task-event.ts';
import type { TaskPatch, TaskStore } from './task-store.ts';
import {
  endPatch,
  FROM_SUBMITTED,
  FROM_UNFINISHED,
  FROM_WORKING,
  isConflict,
  pausePatch,
  START,
} from './task-writes.ts';

/** What every run of one runner shares. */
export interface RunShared {
  readonly agent: Agent;
  readonly store: TaskStore;
  readonly conversations: ConversationStore;
  /** How many earlier messages a run is handed at most. */
  readonly maxHistory: number;
  /** The tasks queued to run again after an answer (they are `working` already). */
  readonly resuming: Set<string>;
  /** The tasks created `working` in a slot taken for them, as created: their runs start there. */
  readonly started: Map<string, Task>;
  /**
   * The seq of the last change heard of each task created here to run, from its creation until
   * its run ends (or it ends unrun): a follow from that seq has nothing to read (see
   * `runnerSource`).
   */
  readonly heard: Map<string, number>;
}

/**
 * Checks a progress event before it goes to the log: a hand-written agent's events are not
 * checked on their way (a `defineAgent` run's are), and the log keeps only what every reader can
 * read, so one it could not (a `text-delta` without a string delta, say) fails the run as the
 * agent's doing, as a `defineAgent` run fails.
 */
function faultOf(event: AgentEvent): string | undefined {
  return event.type === 'artifact-update' ? progressEventFault(event) : taskProgressFault(event);
}

function addProgress(progress: ProgressLog, event: AgentEvent, agentName: string): void {
  const fault = faultOf(event);
  if (fault !== undefined) {
    throw new AgentFailureError({
      agentName,
      cause: new TypeError(`Agent '${agentName}' yielded ${fault}`),
    });
  }
  if (event.type !== 'artifact-update') {
    progress.add(event as TaskProgressEvent);
    return;
  }
  const { artifactId, name, parts, append, lastChunk } = event as ArtifactUpdateEvent;
  progress.addChunk({
    artifactId,
    parts,
    ...(name === undefined ? {} : { name }),
    ...(append === undefined ? {} : { append }),
    ...(lastChunk === undefined ? {} : { lastChunk }),
  });
}

/** The message a run answers: the task's newest one (the caller's, or its answer), else its input. */
function newMessageOf(task: Task): AgentInput {
  const { messages } = task;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as Message;
    if (message.role === 'user') return message;
  }
  return task.input;
}

/** The options of a task's run: its signal and metadata, its conversation, and what it resumes. */
async function runOptionsOf(
  shared: RunShared,
  task: Task,
  signal: AbortSignal,
  resumed: boolean,
): Promise<AgentRunOptions> {
  const options: AgentRunOptions = { signal, contextId: task.contextId, taskId: task.id };
  // The agent gets its own copy of the metadata; without any, the run makes one if asked.
  if (hasOwnKeys(task.metadata)) options.metadata = { ...task.metadata };
  // A task that started its own conversation (named by its id) has no earlier messages.
  if (resumed || task.contextId !== task.id) {
    const conversation = await readConversation(
      shared.store,
      shared.conversations,
      task.contextId,
      {
        limit: shared.maxHistory,
      },
    );
    if (conversation !== undefined && conversation.agentName === shared.agent.name) {
      options.history = conversation.messages;
    }
  }
  if (resumed && task.inputRequest?.state !== undefined) {
    options.resumeState = task.inputRequest.state;
  }
  return options;
}

/**
 * Records a run's turn in its conversation before the task says it ended (so a follow-up sent as
 * soon as the caller sees the end finds it): the message it answered and the agent's answer, or
 * its question (then the task waits for input there). A context another agent took meanwhile
 * keeps its own messages.
 */
async function recordTurn(
  shared: RunShared,
  task: Task,
  input: AgentInput,
  reply: Message,
  waiting: boolean,
  resumed: boolean,
): Promise<void> {
  const message = typeof input === 'string' ? userMessage(input) : input;
  const change = {
    agentName: shared.agent.name,
    messages: [message, reply],
    ...(waiting ? { waitingTaskId: task.id } : resumed ? { waitingTaskId: null } : {}),
  };
  await shared.conversations.append(task.contextId, change).catch((error: unknown) => {
    if (toAgentPortError(error).code !== 'context_not_found') throw error;
  });
}

/** Starts a task's run: `working` from `submitted`, or as it is when it resumes after an answer. */
async function startTask(shared: RunShared, id: string, resumed: boolean): Promise<Task> {
  const created = shared.started.get(id);
  if (created !== undefined) {
    shared.started.delete(id);
    return created;
  }
  if (!resumed) return shared.store.update(id, START, FROM_SUBMITTED);
  const task = await shared.store.get(id);
  if (task === undefined || task.status !== 'working')
    throw new AgentFailureError({
      agentName: shared.agent.name,
      message: `Task '${id}' is no longer waiting to resume`,
    });
  return task;
}

/** Ends a run that returned: its turn recorded, then the task completed or paused. */
async function endTask(
  shared: RunShared,
  task: Task,
  input: AgentInput,
  end: TerminalEvent,
  progress: ProgressLog,
  resumed: boolean,
): Promise<void> {
  const { store, agent } = shared;
  if (end.type === 'done') checkedOutput(end.output, agent.name);
  const writing = progress.settle();
  if (writing !== undefined) await writing;
  if (end.type === 'input-required') {
    const patch: TaskPatch = pausePatch(end);
    const pending = progress.takePending();
    if (pending !== undefined) patch.progress = pending;
    await recordTurn(shared, task, input, patch.statusMessage as Message, true, resumed);
    await store.update(task.id, patch, FROM_WORKING);
    return;
  }
  // A first turn that completed in a conversation of its own stays in its task alone (see
  // readConversation): most tasks are that, and have no second turn.
  const ownFirstTurn = !resumed && task.contextId === task.id;
  if (end.type === 'done' && !ownFirstTurn) {
    await recordTurn(shared, task, input, agentMessage(end.output), false, resumed);
  }
  await store.update(task.id, endPatch(end, progress.takePending()), FROM_WORKING);
}

/**
 * Runs one task of the runner's agent to its end in its store: working, then completed, failed or
 * paused (`input-required`), its progress events appended to the task's log as they come (the
 * text deltas growing its output, artifact chunks its artifacts); a canceled task is left as the
 * cancel wrote it. The run gets the task's newest message, the conversation's earlier messages
 * and, when it answers a pause, the state the pause left. Never rejects; frees its slot once its
 * agent is done (its end is written after).
 */
export async function runTask(
  shared: RunShared,
  id: string,
  controller: AbortController,
  slots: RunSlots,
): Promise<void> {
  const { agent, store } = shared;
  const { signal } = controller;
  const progress = new ProgressLog(store, id);
  const resumed = shared.resuming.delete(id);
  try {
    const task = await startTask(shared, id, resumed);
    const input = newMessageOf(task);
    const options = await runOptionsOf(shared, task, signal, resumed);
    let end: TerminalEvent | undefined;
    try {
      end = await terminalEventOf(
        agent.stream(input, options),
        (event) => addProgress(progress, event, agent.name),
        signal,
      );
    } catch (error) {
      // What the agent throws (its stream on call, or a step) is its failure, as on every
      // other surface; an append that failed is the store's.
      throw progress.failedWith(error) ? error : toAgentFailure(error, agent.name);
    } finally {
      slots.agentDone(id, controller);
    }
    // Canceled: the task says so already.
    if (signal.aborted) return;
    if (end === undefined) throw endedWithoutResult(agent.name);
    await endTask(shared, task, input, end, progress, resumed);
  } catch (error) {
    if (signal.aborted || isConflict(error)) return;
    const { code, message } = toAgentPortError(error);
    await progress.settle()?.catch(() => undefined);
    const patch = endPatch({ type: 'error', code, message }, progress.takePending());
    await store.update(id, patch, FROM_UNFINISHED).catch(() => undefined);
  } finally {
    shared.heard.delete(id);
    slots.finished(id, controller);
  }
}
