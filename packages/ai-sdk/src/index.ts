export { type AiSdkAgentLike, type FromAiSdkOptions, fromAiSdk } from './from-ai-sdk.ts';
