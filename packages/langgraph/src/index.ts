export {
  type FromLangGraphOptions,
  fromLangGraph,
  type LangGraphLike,
  type LangGraphStateLike,
  type LangGraphStreamOptions,
} from './from-langgraph.ts';
export type { InterruptState, PendingInterrupt } from './interrupts.ts';
export type { LangChainToolLike } from './tools.ts';
