import { describe, expect, it } from 'vitest';
import { ADAPTER_TEXT_DELTAS, adapterTargets } from './scenarios.ts';

const frame = (data: unknown, event?: string) =>
  `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;
const deltas = (count: number, each: (index: number) => string) =>
  Array.from({ length: count }, (_, index) => each(index)).join('');

/** AgentPort's REST/SSE stream of the scenario, with `count` text deltas. */
const gatewayStream = (count: number) =>
  frame({ id: 'call-1', name: 'weather', input: { city: 'Paris' } }, 'tool-call') +
  frame({ id: 'call-1', name: 'weather', output: { degrees: 21 } }, 'tool-result') +
  deltas(count, (index) => frame({ delta: `w${index} ` }, 'text-delta')) +
  frame({ output: 'w0 w1' }, 'done');

/** The AI SDK's UI message stream of the scenario, with `count` text deltas. */
const uiMessageStream = (count: number) =>
  frame({ type: 'start' }) +
  frame({ type: 'tool-input-available', toolCallId: 'call-1' }) +
  frame({ type: 'tool-output-available', toolCallId: 'call-1' }) +
  deltas(count, (index) => frame({ type: 'text-delta', id: 't', delta: `w${index} ` })) +
  frame({ type: 'finish-step' }) +
  frame({ type: 'finish' }) +
  'data: [DONE]\n\n';

describe('adapterTargets', () => {
  it('accepts a gateway stream with the tool call, its result, every delta and done', () => {
    const { gateway } = adapterTargets();
    expect(gateway.complete(gatewayStream(ADAPTER_TEXT_DELTAS))).toBe(true);
    expect(gateway.complete(gatewayStream(ADAPTER_TEXT_DELTAS - 1))).toBe(false);
    expect(gateway.complete(gatewayStream(ADAPTER_TEXT_DELTAS).replace('event: done\n', ''))).toBe(
      false,
    );
  });

  it('accepts a UI message stream only with its tool parts, every delta and its finish', () => {
    const target = adapterTargets()['ai-sdk-hono'];
    const whole = uiMessageStream(ADAPTER_TEXT_DELTAS);
    expect(target.complete(whole)).toBe(true);
    expect(target.complete(uiMessageStream(ADAPTER_TEXT_DELTAS + 1))).toBe(false);
    expect(target.complete(whole.replace('tool-output-available', 'tool-output-error'))).toBe(
      false,
    );
    // The end of a step is not the end of the stream.
    expect(target.complete(whole.replace('{"type":"finish"}', '{"type":"abort"}'))).toBe(false);
  });

  it('sends the gateway and the AI SDK route the same input, and Mastra it as its messages', () => {
    const targets = adapterTargets();
    expect(targets.gateway.body).toBe(targets['ai-sdk-hono'].body);
    expect(JSON.parse(targets['mastra-hono'].body)).toEqual({
      messages: JSON.parse(targets.gateway.body).input,
    });
  });
});
