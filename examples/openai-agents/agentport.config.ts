import { defineConfig } from '@agentport/gateway';
import { weatherAgent } from './agent.ts';

export default defineConfig({ agents: [weatherAgent], defaultAgent: 'weather', builtins: false });
