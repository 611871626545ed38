export { createBuiltinAgents } from './builtin-agents.ts';
export {
  ConfigError,
  DEFAULT_CONFIG_FILES,
  defineConfig,
  type GatewayConfig,
  loadConfig,
  type RemoteAgentConfig,
  validateConfig,
} from './config.ts';
export { agentUrls, createGateway, type Gateway, type GatewayOptions } from './gateway.ts';
export { type ResolvedAgents, resolveAgents } from './resolve-agents.ts';
