import { createLangGraphScripted } from './testing/adapters/langgraph-agent.ts';
import { describeOnEverySurface } from './testing/adapters/surfaces.ts';

describeOnEverySurface('A LangGraph', createLangGraphScripted);
