export { nextOrAbort, sleep } from './abortable.ts';
export type { Agent, AgentRunOptions } from './agent.ts';
export type {
  AgentEvent,
  DoneEvent,
  ErrorEvent,
  HandoffEvent,
  TextDeltaEvent,
  ToolCallEvent,
  ToolResultEvent,
} from './agent-event.ts';
export { AGENT_EVENT_TYPES } from './agent-event.ts';
export { assertAgentName, isValidAgentName } from './agent-name.ts';
export { outputOf } from './agent-output.ts';
export type {
  AgentDefinition,
  AgentProgressEvent,
  AgentRunContext,
  AgentRunFunction,
} from './define-agent.ts';
export { defineAgent } from './define-agent.ts';
export { AgentFailureError, type AgentFailureErrorOptions } from './errors/agent-failure-error.ts';
export { AgentNotFoundError } from './errors/agent-not-found-error.ts';
export { AgentPortError, type AgentPortErrorOptions } from './errors/agentport-error.ts';
export { CancellationError } from './errors/cancellation-error.ts';
export { DuplicateAgentError } from './errors/duplicate-agent-error.ts';
export { InvalidInputError } from './errors/invalid-input-error.ts';
export { InvalidTransitionError } from './errors/invalid-transition-error.ts';
export { RemoteUnavailableError } from './errors/remote-unavailable-error.ts';
export { TaskConflictError } from './errors/task-conflict-error.ts';
export { TaskNotCancelableError } from './errors/task-not-cancelable-error.ts';
export { TaskNotFoundError } from './errors/task-not-found-error.ts';
export { TaskStoreFullError } from './errors/task-store-full-error.ts';
export { toAgentPortError } from './errors/to-agentport-error.ts';
export { ToolArgumentsError } from './errors/tool-arguments-error.ts';
export { type AgentFailureListener, observeFailures } from './observe-failures.ts';
export { MAX_HANDOFF_DEPTH } from './run-stream.ts';
export { createMemoryTaskStore, type MemoryTaskStoreOptions } from './tasks/memory-task-store.ts';
export type { Task, TaskError, TaskStatus } from './tasks/task.ts';
export { assertTransition, canTransition, isTerminalStatus, TASK_STATUSES } from './tasks/task.ts';
export {
  createTaskRunner,
  type TaskRunner,
  type TaskRunnerOptions,
  type TaskWaitOptions,
} from './tasks/task-runner.ts';
export type {
  NewTask,
  TaskListener,
  TaskListOptions,
  TaskPage,
  TaskPatch,
  TaskStore,
  TaskUpdateOptions,
} from './tasks/task-store.ts';
export type { JsonSchema, Tool, ToolDefinition, ToolExecuteOptions } from './tool.ts';
export { defineTool } from './tool.ts';
