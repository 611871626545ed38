import { defineConfig } from '@agentport/gateway';
import { wordCounter } from './src/agent.ts';

export default defineConfig({
  agents: [wordCounter],
  defaultAgent: wordCounter.name,
  // Only your own agents. `true` also serves the built-in demo agents: assistant, echo, ticker.
  builtins: false,
});
