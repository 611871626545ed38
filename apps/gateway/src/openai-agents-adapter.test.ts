import { fromOpenAIAgent } from '@agentport/openai-agents';
import { Agent, Runner } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { describe, expect, it } from 'vitest';
import { createOpenAIAgentsScripted } from './testing/adapters/openai-agents-agent.ts';
import { describeOnEverySurface } from './testing/adapters/surfaces.ts';
import { startGateway } from './testing/in-process-gateway.ts';
import { readEvents } from './testing/sse.ts';

describeOnEverySurface('An OpenAI Agents SDK', createOpenAIAgentsScripted);

describe('An OpenAI Agents SDK agent that hands off, on the gateway', () => {
  it('lists its handoffs in compat and reports the handoff on REST/SSE and compat runs', async () => {
    // Two runs, each: triage hands off, billing answers.
    const model = new ScriptedModel([
      [functionCall('transfer_to_billing', {}, { callId: 'call-1' })],
      [assistantMessage('Billing here')],
      [functionCall('transfer_to_billing', {}, { callId: 'call-2' })],
      [assistantMessage('Billing here')],
    ]);
    const billing = new Agent({ name: 'billing', handoffDescription: 'Pays bills', model });
    const triage = new Agent({ name: 'triage', model, handoffs: [billing] });
    const agent = fromOpenAIAgent(triage, { runner: new Runner({ tracingDisabled: true }) });
    const gateway = await startGateway({ agents: [agent], defaultAgent: 'triage' });
    try {
      const listed = (await (await fetch(`${gateway.url}/compat/agents/triage`)).json()) as {
        handoffs?: Array<{ agent_name?: string; tool_name?: string }>;
      };
      expect(JSON.stringify(listed.handoffs)).toContain('billing');

      const stream = await fetch(`${gateway.url}/agents/triage/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'I was charged twice' }),
      });
      const events = await readEvents(stream);
      const handoff = events.find((event) => event.event === 'handoff');
      expect(JSON.parse(handoff?.data ?? '{}')).toMatchObject({ from: 'triage', to: 'billing' });
      const done = events.find((event) => event.event === 'done');
      expect(JSON.parse(done?.data ?? '{}')).toEqual({ output: 'Billing here' });

      const run = await fetch(`${gateway.url}/compat/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent_name: 'triage', input: 'I was charged twice' }),
      });
      expect(await run.json()).toMatchObject({ output: 'Billing here', agent: 'billing' });
    } finally {
      await gateway.stop();
    }
  });
});
