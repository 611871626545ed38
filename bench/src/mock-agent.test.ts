import { describe, expect, it } from 'vitest';
import { createMockAgent, createMockModel } from './mock-agent.ts';
import { ADAPTER_PROMPT, ADAPTER_TEXT_DELTAS } from './scenarios.ts';

async function partsOf(agent: ReturnType<typeof createMockAgent>): Promise<string[]> {
  const result = await agent.stream({ prompt: ADAPTER_PROMPT });
  const types: string[] = [];
  for await (const part of result.fullStream) types.push(part.type);
  return types;
}

describe('createMockAgent', () => {
  it('calls the tool, then streams the 50 text deltas, on every run of the same agent', async () => {
    const agent = createMockAgent();
    for (let run = 0; run < 3; run += 1) {
      const types = await partsOf(agent);
      expect(types.filter((type) => type === 'tool-call')).toHaveLength(1);
      expect(types.filter((type) => type === 'tool-result')).toHaveLength(1);
      expect(types.filter((type) => type === 'text-delta')).toHaveLength(ADAPTER_TEXT_DELTAS);
      expect(types.indexOf('tool-result')).toBeLessThan(types.indexOf('text-delta'));
    }
  });

  it('keeps no record of the model calls, which would grow under load', async () => {
    const model = createMockModel();
    const agent = createMockAgent(model);
    await partsOf(agent);
    await partsOf(agent);
    // Two runs of two model calls each; the mock keeps at most the call under way.
    expect(model.doStreamCalls.length).toBeLessThanOrEqual(1);
  });
});
