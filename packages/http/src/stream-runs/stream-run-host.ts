import type { Agent, ConversationStore, TaskStore } from '@agentport/core';
import type { StreamRun } from './stream-run.ts';

/** What a stream run runs: an agent, or anything that streams a run by an agent's name (a runner). */
export type StreamedAgent = Pick<Agent, 'name' | 'stream'>;

/** What a run is kept by: the store of its task, the grace of its reader, and its list of runs. */
export interface StreamRunHost {
  readonly store: TaskStore;
  /** How long a run nobody reads goes on before its task is canceled. */
  readonly graceMs: number;
  /** Aborted on shutdown: a run whose reader leaves then is canceled at once. */
  readonly closing: AbortSignal;
  /** Where a run records its turn (the message and the answer, or the question), if anywhere. */
  readonly conversations?: ConversationStore | undefined;
  /** The run is over (its task is terminal): forget it. */
  ended(run: StreamRun): void;
}
