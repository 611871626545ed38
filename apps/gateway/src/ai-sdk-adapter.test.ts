import { createAiSdkScripted } from './testing/adapters/ai-sdk-agent.ts';
import { describeOnEverySurface } from './testing/adapters/surfaces.ts';

describeOnEverySurface('An AI SDK', createAiSdkScripted);
