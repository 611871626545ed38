export { type FromOpenAIAgentOptions, fromOpenAIAgent } from './from-openai-agent.ts';
