export { type AgentSummary, describeAgent } from './server/describe-agent.ts';
export {
  createRestServer,
  invokeRequestSchema,
  type RestServer,
  type RestServerOptions,
} from './server/rest-server.ts';
export { normalizeRouteName } from './server/route-name.ts';
