// @agentport/core/internal: what the sibling packages (the HTTP kit, the surfaces, the stores)
// share and users need not; unstable, it may change in any release.
export { checkedOutput, errorFromEvent } from '../agent-output.ts';
export { type RemoteTaskFailure, remoteTaskError } from '../errors/remote-task-error.ts';
export { toAgentFailure } from '../errors/to-agent-failure.ts';
export { nestsWithin } from '../json-depth.ts';
export { jsonWeight } from '../json-weight.ts';
export { messageFault, partsFault } from '../message.ts';
export { progressEventFault } from '../progress-event-fault.ts';
export { type PausedTurn, pauseAsTask } from '../tasks/converse.ts';
// The checks of what a task store is given, for a store of another package (the PostgreSQL one).
export {
  assertMessages,
  assertPatch,
  assertProgress,
  changesAnything,
} from '../tasks/memory-task-changes.ts';
export { contextIdOf, retentionOf, startsWorking } from '../tasks/memory-task-store.ts';
export { readConversation } from '../tasks/read-conversation.ts';
export { taskProgressFault } from '../tasks/task-event.ts';
export { pausePatch } from '../tasks/task-writes.ts';
// The tool-approval question and answers of the framework adapters (ai-sdk, openai-agents).
export { approvalAnswerOf, approvalQuestion } from '../tool-approval.ts';
export { afterMicrotasks } from './after-microtasks.ts';
export { type LinkedSignal, linkSignals } from './link-signals.ts';
export { observeAgentEvents } from './observe-agent-events.ts';
export { pacedEvents } from './paced-events.ts';
export type { AgentEventObserver } from './push-events.ts';
export { randomUuid } from './random-uuid.ts';
