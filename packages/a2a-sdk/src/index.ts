export {
  type A2ASdkServerConfig,
  type AgentCardOptions,
  createAgentCard,
  createAgentSkills,
  JSON_RPC_PATH,
  REST_PATH,
} from './card/agent-card.ts';
export { isLegacyVersion, toLegacyAgentCard } from './card/legacy-agent-card.ts';
export {
  agentCardUrlOf,
  agentNameOf,
  createRemoteSdkAgent,
  type RemoteSdkAgentOptions,
} from './client/remote-agent.ts';
export { RemoteAgentCardError } from './errors/remote-agent-card-error.ts';
export { RemoteAgentError } from './errors/remote-agent-error.ts';
export {
  type AgentExecutorOptions,
  type ClosableAgentExecutor,
  createAgentExecutor,
} from './executor/agent-executor.ts';
export type { MessageReplyRequest } from './executor/message-reply.ts';
export { OUTPUT_ARTIFACT_ID } from './executor/parts.ts';
export { AbortableCallContext } from './handler/abortable-call-context.ts';
export {
  FastPathRequestHandler,
  type FastPathRequestHandlerOptions,
} from './handler/fast-path-request-handler.ts';
export { type A2AUserBuilder, noAuthentication } from './http/call-context.ts';
export {
  type A2ASdkServer,
  type A2ASdkServerOptions,
  AGENT_CARD_ROUTE,
  createA2ASdkServer,
} from './server.ts';
export { createCoreTaskStore } from './store/core-task-store.ts';
export { ListenerExecutionEventBus, ListenerExecutionEventBusManager } from './store/event-bus.ts';
export { type A2ATaskStoreOptions, createA2ATaskStore } from './store/memory-task-store.ts';
