import type { AgentOutputType, Agent as OpenAIAgent } from '@openai/agents';

/** An SDK agent of any context and output, as the adapter holds it (it reads neither). */
export type SdkAgent = OpenAIAgent<unknown, AgentOutputType>;

/** How a run names the SDK agents it meets (the AgentPort names of a handoff's two ends). */
export type AgentNamer = (agent: SdkAgent) => string;
