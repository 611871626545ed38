export {
  type AiSdkAgentLike,
  type FromAiSdkOptions,
  fromAiSdk,
  type StreamTextSettings,
} from './from-ai-sdk.ts';
