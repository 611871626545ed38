export type {
  AgentDef,
  FlatToolDef,
  FunctionDef,
  Handoff,
  Interruption,
  JsonObjectSchema,
  RunRequest,
  RunResponse,
  ToolCallResult,
  ToolDef,
} from './definitions.ts';
export { runRequestSchema } from './definitions.ts';
export { fromFlatToolDef, toFlatToolDef, toJsonObjectSchema } from './flat-tool.ts';
export { fromAgent, fromHandoffs, fromTools, handoffToolName } from './from-agent.ts';
export { type CompatAppOptions, createCompatApp } from './http/compat-app.ts';
export type {
  InputContent,
  InputFileContent,
  InputImageContent,
  InputItem,
  InputMessageItem,
  InputTextContent,
  OutputTextContent,
  RefusalContent,
} from './input-items.ts';
export {
  createRunner,
  type Runner,
  type RunnerOptions,
  type RunOptions,
  type StreamingRunRequest,
} from './runner.ts';
