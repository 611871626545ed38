import { createOpenAIAgentsScripted } from './testing/adapters/openai-agents-agent.ts';
import { describeOnEverySurface } from './testing/adapters/surfaces.ts';

describeOnEverySurface('An OpenAI Agents SDK', createOpenAIAgentsScripted);
