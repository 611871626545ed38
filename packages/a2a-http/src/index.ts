export {
  type A2AHttpClient,
  type A2AHttpClientOptions,
  type A2AHttpRequestOptions,
  createA2AHttpClient,
  type GetTaskOptions,
  type ListTasksOptions,
  type WaitForTaskOptions,
  type WatchTaskOptions,
} from './client/create-a2a-http-client.ts';
export { MalformedResponseError } from './errors/malformed-response-error.ts';
export { RemoteHttpError, type RemoteHttpErrorOptions } from './errors/remote-http-error.ts';
export { RemoteTaskNotFoundError } from './errors/remote-task-not-found-error.ts';
export { RemoteTimeoutError } from './errors/remote-timeout-error.ts';
export { RemoteUnreachableError } from './errors/remote-unreachable-error.ts';
export { agentNameFromCard } from './remote/agent-name-from-card.ts';
export {
  createRemoteAgent,
  type RemoteAgent,
  type RemoteAgentOptions,
} from './remote/create-remote-agent.ts';
export {
  type A2AHttpServer,
  type A2AHttpServerOptions,
  createA2AHttpServer,
} from './server/create-a2a-http-server.ts';
export {
  AGENT_CARD_PATH,
  type AgentCapabilities,
  type AgentCard,
  type AgentCardOptions,
  type AgentSkill,
  agentCardSchema,
  buildAgentCard,
} from './wire/agent-card.ts';
export {
  type CreateTaskRequest,
  createTaskRequestSchema,
  listTasksQuerySchema,
  MAX_CONTEXT_ID_LENGTH,
  MAX_METADATA_DEPTH,
  MAX_WAIT_SECONDS,
  type SendMessageRequest,
  sendMessageRequestSchema,
  taskSchema,
  waitQuerySchema,
} from './wire/task-schemas.ts';
export type { A2ATask, A2ATaskPage } from './wire/wire-task.ts';
