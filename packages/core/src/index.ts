export { nextOrAbort, sleep } from './abortable.ts';
export type { Agent, AgentInput, AgentRunOptions } from './agent.ts';
export type {
  AgentEvent,
  ArtifactUpdateEvent,
  DoneEvent,
  ErrorEvent,
  HandoffEvent,
  InputRequiredEvent,
  TextDeltaEvent,
  ToolCallEvent,
  ToolResultEvent,
} from './agent-event.ts';
export { AGENT_EVENT_TYPES } from './agent-event.ts';
export { assertAgentName, isValidAgentName } from './agent-name.ts';
export { isTerminalEvent, outputOf, type TerminalEvent } from './agent-output.ts';
export type {
  Conversation,
  ConversationAppend,
  ConversationReadOptions,
  ConversationStore,
} from './conversations/conversation-store.ts';
export {
  createMemoryConversationStore,
  type MemoryConversationStoreOptions,
} from './conversations/memory-conversation-store.ts';
export type {
  AgentDefinition,
  AgentProgressEvent,
  AgentRunContext,
  AgentRunFunction,
} from './define-agent.ts';
export { defineAgent } from './define-agent.ts';
export { AgentFailureError, type AgentFailureErrorOptions } from './errors/agent-failure-error.ts';
export { AgentNotFoundError } from './errors/agent-not-found-error.ts';
export {
  AgentPortError,
  type AgentPortErrorCode,
  type AgentPortErrorOptions,
} from './errors/agentport-error.ts';
export { CancellationError } from './errors/cancellation-error.ts';
export { ContextNotFoundError } from './errors/context-not-found-error.ts';
export { DuplicateAgentError } from './errors/duplicate-agent-error.ts';
export { EventsAheadError } from './errors/events-ahead-error.ts';
export { EventsExpiredError } from './errors/events-expired-error.ts';
export { InputRequiredError } from './errors/input-required-error.ts';
export { InvalidInputError } from './errors/invalid-input-error.ts';
export { InvalidTransitionError } from './errors/invalid-transition-error.ts';
export { RemoteUnavailableError } from './errors/remote-unavailable-error.ts';
export { StoreUnavailableError } from './errors/store-unavailable-error.ts';
export { TaskConflictError } from './errors/task-conflict-error.ts';
export { TaskNotCancelableError } from './errors/task-not-cancelable-error.ts';
export { TaskNotFoundError } from './errors/task-not-found-error.ts';
export { TaskNotWaitingError } from './errors/task-not-waiting-error.ts';
export { TaskStoreFullError } from './errors/task-store-full-error.ts';
export { toAgentPortError } from './errors/to-agentport-error.ts';
export { ToolArgumentsError } from './errors/tool-arguments-error.ts';
export { type InputRequiredOptions, inputRequired, isInputRequired } from './input-required.ts';
export {
  agentMessage,
  base64Size,
  type DataPart,
  type FilePart,
  isBase64,
  type Message,
  type MessageRole,
  type Part,
  type TextPart,
  textOf,
  userMessage,
} from './message.ts';
export { type AgentFailureListener, observeFailures } from './observe-failures.ts';
export { MAX_HANDOFF_DEPTH } from './run-context.ts';
export type { ConverseOptions, TurnResult } from './tasks/converse.ts';
export { followTaskEvents, type TaskFollowOptions } from './tasks/follow-events.ts';
export { createMemoryTaskStore, type MemoryTaskStoreOptions } from './tasks/memory-task-store.ts';
export type { Artifact, Task, TaskError, TaskInputRequest } from './tasks/task.ts';
export type {
  TaskArtifactUpdateEvent,
  TaskEvent,
  TaskLogEntry,
  TaskMessageEvent,
  TaskProgressEvent,
  TaskStatusUpdateEvent,
} from './tasks/task-event.ts';
export { endsTask } from './tasks/task-event.ts';
export {
  assertTransition,
  canTransition,
  isInterruptedStatus,
  isSettledStatus,
  isTerminalStatus,
  TASK_STATUSES,
  type TaskStatus,
  UNFINISHED_STATUSES,
} from './tasks/task-lifecycle.ts';
export {
  createTaskRunner,
  type TaskRunner,
  type TaskRunnerOptions,
  type TaskSubmitOptions,
  type TaskWaitOptions,
} from './tasks/task-runner.ts';
export type {
  NewTask,
  TaskArtifactChunk,
  TaskEventsOptions,
  TaskListener,
  TaskListOptions,
  TaskPage,
  TaskPatch,
  TaskStore,
  TaskUpdateOptions,
} from './tasks/task-store.ts';
export type { JsonSchema, Tool, ToolDefinition, ToolExecuteOptions } from './tool.ts';
export { defineTool } from './tool.ts';
