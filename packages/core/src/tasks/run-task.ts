import type { Agent } from '../agent.ts';
import {
  checkedOutput,
  endedWithoutResult,
  type TerminalEvent,
  terminalEventOf,
} from '../agent-output.ts';
import { toAgentFailure } from '../errors/to-agent-failure.ts';
import { toAgentPortError } from '../errors/to-agentport-error.ts';
import { ProgressWriter } from './progress-writer.ts';
import type { RunSlots } from './run-slots.ts';
import { hasOwnKeys } from './task.ts';
import type { TaskStore } from './task-store.ts';
import { endPatch, FROM_SUBMITTED, FROM_WORKING, isConflict, START } from './task-writes.ts';

/**
 * Runs one task of `agent` to its end in `store`: working, then completed or failed, writing its
 * output as it grows; a canceled task is left as the cancel wrote it. Never rejects; frees its
 * slot once over.
 */
export async function runTask(
  agent: Agent,
  store: TaskStore,
  id: string,
  controller: AbortController,
  slots: RunSlots,
): Promise<void> {
  const { signal } = controller;
  const progress = new ProgressWriter(store, id);
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
        (event) => {
          if (event.type === 'text-delta') progress.append(event.delta);
        },
        signal,
      );
    } catch (error) {
      // What the agent throws (its stream on call, or a step) is its failure, as on every
      // other surface; a progress write that failed is the store's.
      throw progress.failedWith(error) ? error : toAgentFailure(error, agent.name);
    }
    // Canceled: the task says so already.
    if (signal.aborted) return;
    if (end === undefined) throw endedWithoutResult(agent.name);
    if (end.type === 'done') checkedOutput(end.output, agent.name);
    const writing = progress.settle();
    if (writing !== undefined) await writing;
    const patch = endPatch(end, progress.output);
    await store.update(id, patch, FROM_WORKING);
  } catch (error) {
    if (signal.aborted || isConflict(error)) return;
    const { code, message } = toAgentPortError(error);
    await progress.settle()?.catch(() => undefined);
    const patch = endPatch({ type: 'error', code, message }, progress.output);
    await store
      .update(id, patch, { expectedStatus: ['submitted', 'working'] })
      .catch(() => undefined);
  } finally {
    slots.finished(id, controller);
  }
}
