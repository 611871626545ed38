import type { Agent } from '../agent.ts';
import type { AgentEvent } from '../agent-event.ts';
import {
  checkedOutput,
  endedWithoutResult,
  type TerminalEvent,
  terminalEventOf,
} from '../agent-output.ts';
import { AgentFailureError } from '../errors/agent-failure-error.ts';
import { toAgentFailure } from '../errors/to-agent-failure.ts';
import { toAgentPortError } from '../errors/to-agentport-error.ts';
import { ProgressLog } from './progress-log.ts';
import type { RunSlots } from './run-slots.ts';
import { hasOwnKeys } from './task.ts';
import { type TaskProgressEvent, taskProgressFault } from './task-event.ts';
import type { TaskStore } from './task-store.ts';
import {
  endPatch,
  FROM_SUBMITTED,
  FROM_UNFINISHED,
  FROM_WORKING,
  isConflict,
  START,
} from './task-writes.ts';

/**
 * Checks a progress event before it goes to the log: a hand-written agent's events are not
 * checked on their way (a `defineAgent` run's are), and the log keeps only what every reader can
 * read, so one it could not (a `text-delta` without a string delta, say) fails the run as the
 * agent's doing, as a `defineAgent` run fails.
 */
function checkedProgress(event: AgentEvent, agentName: string): TaskProgressEvent {
  const fault = taskProgressFault(event);
  if (fault === undefined) return event as TaskProgressEvent;
  throw new AgentFailureError({
    agentName,
    cause: new TypeError(`Agent '${agentName}' yielded ${fault}`),
  });
}

/**
 * Runs one task of `agent` to its end in `store`: working, then completed or failed, its progress
 * events appended to the task's log as they come (the text deltas growing its output); a canceled
 * task is left as the cancel wrote it. Never rejects; frees its slot once over.
 */
export async function runTask(
  agent: Agent,
  store: TaskStore,
  id: string,
  controller: AbortController,
  slots: RunSlots,
): Promise<void> {
  const { signal } = controller;
  const progress = new ProgressLog(store, id);
  try {
    const task = await store.update(id, START, FROM_SUBMITTED);
    let end: TerminalEvent | undefined;
    try {
      // The agent gets its own copy of the metadata; without any, the run makes one if asked.
      const events = agent.stream(
        task.input,
        hasOwnKeys(task.metadata) ? { signal, metadata: { ...task.metadata } } : { signal },
      );
      end = await terminalEventOf(
        events,
        (event) => progress.add(checkedProgress(event, agent.name)),
        signal,
      );
    } catch (error) {
      // What the agent throws (its stream on call, or a step) is its failure, as on every
      // other surface; an append that failed is the store's.
      throw progress.failedWith(error) ? error : toAgentFailure(error, agent.name);
    }
    // Canceled: the task says so already.
    if (signal.aborted) return;
    if (end === undefined) throw endedWithoutResult(agent.name);
    if (end.type === 'done') checkedOutput(end.output, agent.name);
    const writing = progress.settle();
    if (writing !== undefined) await writing;
    await store.update(id, endPatch(end, progress.takePending()), FROM_WORKING);
  } catch (error) {
    if (signal.aborted || isConflict(error)) return;
    const { code, message } = toAgentPortError(error);
    await progress.settle()?.catch(() => undefined);
    const patch = endPatch({ type: 'error', code, message }, progress.takePending());
    await store.update(id, patch, FROM_UNFINISHED).catch(() => undefined);
  } finally {
    slots.finished(id, controller);
  }
}
