export { createBuiltinAgents } from './builtin-agents.ts';
export {
  ConfigError,
  DEFAULT_CONFIG_FILES,
  defineConfig,
  type GatewayConfig,
  loadConfig,
  type PostgresStoreConfig,
  type RemoteAgentConfig,
  validateConfig,
} from './config.ts';
export { agentUrls, createGateway, type Gateway, type GatewayOptions } from './gateway.ts';
export type { RemoteRetryOptions, UnavailableRemote } from './remote-retries.ts';
export {
  type ResolveAgentsOptions,
  type ResolvedAgents,
  resolveAgents,
} from './resolve-agents.ts';
