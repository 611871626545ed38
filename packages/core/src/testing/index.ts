export {
  type ConversationStoreContractOptions,
  type ConversationStoreFactory,
  describeConversationStoreContract,
} from './conversation-store-contract.ts';
export {
  assertExportsDocumented,
  findUndocumentedExports,
  type UndocumentedExport,
} from './exports-documented.ts';
export {
  createFloodAgents,
  type FloodAgents,
  type TimerTurns,
  timersDuring,
} from './flood-agents.ts';
export { createNumericAgent } from './numeric-agent.ts';
export { type ReadmeExampleResult, runReadmeExample } from './readme-example.ts';
export {
  describeTaskStoreContract,
  type TaskStoreContractOptions,
  type TaskStoreFactory,
} from './task-store-contract.ts';
