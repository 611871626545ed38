import { type AgentRunContext, CancellationError, userMessage } from '@agentport/core';
import { Agent, Runner } from '@openai/agents';
import { modelStreamResponder, ScriptedModel } from '@openai/agents/testing';
import { describe, expect, it, vi } from 'vitest';
import { createRun } from './run-agent.ts';
import type { SdkAgent } from './sdk-agent.ts';

describe('createRun', () => {
  it('ends a run whose SDK run was canceled with a CancellationError, reading no final output', async () => {
    const model = new ScriptedModel([
      modelStreamResponder(async function* (call) {
        yield { type: 'response_started' };
        yield { type: 'output_text_delta', delta: 'thinking' };
        await new Promise((resolve) => call.request.signal?.addEventListener('abort', resolve));
      }),
    ]);
    const agent = new Agent({ name: 'slow', model }) as unknown as SdkAgent;
    const run = createRun({
      name: 'slow',
      agent,
      nameOf: (other) => other.name,
      runner: new Runner({ tracingDisabled: true }),
      maxTurns: undefined,
      context: undefined,
    });
    const controller = new AbortController();
    // Only what the run function reads of its context.
    const context = {
      signal: controller.signal,
      message: userMessage('Go'),
      history: [],
      metadata: {},
      resumeState: undefined,
    } as unknown as AgentRunContext;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const steps = run('Go', context);
    await expect(steps.next()).resolves.toEqual({
      done: false,
      value: { type: 'text-delta', delta: 'thinking' },
    });
    controller.abort();
    const end = await steps.next().catch((error: unknown) => error);
    expect(end).toBeInstanceOf(CancellationError);
    expect(end).toMatchObject({ code: 'canceled' });
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });
});
