import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { sleep } from './abortable.ts';
import type { Agent } from './agent.ts';
import type { AgentEvent } from './agent-event.ts';
import { outputOf } from './agent-output.ts';
import { defineAgent } from './define-agent.ts';
import type { AgentPortError } from './errors/agentport-error.ts';
import { InvalidInputError } from './errors/invalid-input-error.ts';
import { observeFailures } from './observe-failures.ts';
import { createNumericAgent } from './testing/numeric-agent.ts';
import { defineTool } from './tool.ts';

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const boom = new Error('secret detail');

/** An agent that says a word, then fails with `boom`. */
const failing = defineAgent({
  name: 'failing',
  description: 'Fails',
  tools: [defineTool({ name: 'noop', parameters: z.object({}), execute: () => 'ok' })],
  async *run() {
    yield { type: 'text-delta', delta: 'partial' };
    throw boom;
  },
});

function observed(agent: Agent) {
  const reports: Array<{ error: AgentPortError; name: string }> = [];
  const wrapped = observeFailures(agent, (error, name) => reports.push({ error, name }));
  return { wrapped, reports };
}

describe('observeFailures', () => {
  it('keeps the agent as it is: identity, tools and what its runs do', async () => {
    const { wrapped, reports } = observed(failing);
    expect(wrapped).toMatchObject({ name: 'failing', description: 'Fails' });
    expect(wrapped.tools).toBe(failing.tools);
    expect(wrapped.handoffs).toEqual([]);
    expect(await collect(wrapped.stream('x'))).toEqual(await collect(failing.stream('x')));
    await expect(wrapped.invoke('x')).rejects.toMatchObject({ code: 'agent_failure' });
    expect(reports).toHaveLength(2);
  });

  it('reports a rejected invoke once, with the original error as its cause', async () => {
    const { wrapped, reports } = observed(failing);
    const rejection = await wrapped.invoke('x').catch((error: unknown) => error);
    expect(reports).toEqual([{ error: rejection, name: 'failing' }]);
    expect(reports[0]?.error.cause).toBe(boom);
  });

  it('reports a stream that ends with an error event, iterated or pushed', async () => {
    const { wrapped, reports } = observed(failing);
    const events = await collect(wrapped.stream('x'));
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'agent_failure' });
    expect(reports).toHaveLength(1);
    expect(reports[0]?.error.cause).toBe(boom);
    // outputOf reads a stream that can push through its push side: the wrapper keeps it.
    const stream = wrapped.stream('x');
    expect(Symbol.for('agentport.agent-events.push') in stream).toBe(true);
    await expect(outputOf(stream, 'failing')).rejects.toMatchObject({ code: 'agent_failure' });
    expect(reports).toHaveLength(2);
    expect(reports[1]?.error.cause).toBe(boom);
  });

  it('reports a hand-written stream that throws, and an invoke that throws something else', async () => {
    const handWritten: Agent = {
      name: 'raw',
      tools: [],
      handoffs: [],
      invoke: async () => {
        throw boom;
      },
      async *stream() {
        yield { type: 'text-delta', delta: 'a' };
        throw boom;
      },
    };
    const { wrapped, reports } = observed(handWritten);
    await expect(collect(wrapped.stream('x'))).rejects.toBe(boom);
    await expect(wrapped.invoke('x')).rejects.toBe(boom);
    // As callers are told it: agent_failure, the original kept as the cause.
    expect(reports.map(({ error }) => [error.code, error.cause])).toEqual([
      ['agent_failure', boom],
      ['agent_failure', boom],
    ]);
  });

  it('reports a hand-written stream and invoke that throw when called, and throws on', () => {
    const throwing: Agent = {
      name: 'throwing',
      tools: [],
      handoffs: [],
      invoke: () => {
        throw boom;
      },
      stream: () => {
        throw boom;
      },
    };
    const { wrapped, reports } = observed(throwing);
    expect(() => wrapped.stream('x')).toThrow(boom);
    expect(() => wrapped.invoke('x')).toThrow(boom);
    expect(reports.map(({ error, name }) => [error.code, name, error.cause])).toEqual([
      ['agent_failure', 'throwing', boom],
      ['agent_failure', 'throwing', boom],
    ]);
  });

  it('reports a final output that is not a string, streamed or invoked, and passes it on', async () => {
    const { wrapped, reports } = observed(createNumericAgent());
    expect(await collect(wrapped.stream('x'))).toEqual([{ type: 'done', output: 42 }]);
    expect(await wrapped.invoke('x')).toBe(42);
    expect(reports.map(({ error, name }) => [error.code, name, String(error.cause)])).toEqual([
      [
        'agent_failure',
        'numeric',
        "TypeError: Agent 'numeric' ended with a number output, not a string",
      ],
      [
        'agent_failure',
        'numeric',
        "TypeError: Agent 'numeric' ended with a number output, not a string",
      ],
    ]);
  });

  it('reports the errors an agent raises on purpose too, for the listener to weigh', async () => {
    const picky = defineAgent({
      name: 'picky',
      // biome-ignore lint/correctness/useYield: fails before its first event
      async *run() {
        throw new InvalidInputError('bad input');
      },
    });
    const { wrapped, reports } = observed(picky);
    await expect(wrapped.invoke('x')).rejects.toMatchObject({ status: 400 });
    expect(reports.map(({ error }) => error.code)).toEqual(['invalid_input']);
  });

  it('does not report runs that succeed or are canceled', async () => {
    const slow = defineAgent({
      name: 'slow',
      async *run(input, { signal }) {
        await sleep(input === 'wait' ? 5_000 : 0, signal);
        yield { type: 'text-delta', delta: 'done' };
      },
    });
    const { wrapped, reports } = observed(slow);
    await expect(wrapped.invoke('now')).resolves.toBe('done');
    const controller = new AbortController();
    const running = wrapped.invoke('wait', { signal: controller.signal });
    const streamed = collect(wrapped.stream('wait', { signal: controller.signal }));
    controller.abort();
    await expect(running).rejects.toMatchObject({ code: 'canceled' });
    expect((await streamed).at(-1)).toMatchObject({ type: 'error', code: 'canceled' });
    expect(reports).toEqual([]);
  });

  it('observes handoff targets too, one wrapper per agent for one listener, cycles included', async () => {
    const reports: string[] = [];
    const listener = (_error: AgentPortError, name: string) => reports.push(name);
    const helper = defineAgent({
      name: 'helper',
      // biome-ignore lint/correctness/useYield: fails before its first event
      async *run() {
        throw boom;
      },
    });
    const a = defineAgent({ name: 'a', handoffs: [helper], async *run() {} });
    const b = defineAgent({ name: 'b', handoffs: [helper], async *run() {} });
    const [observedA, observedB] = [a, b].map((agent) => observeFailures(agent, listener));
    const reached = observedA?.handoffs[0];
    expect(reached?.name).toBe('helper');
    expect(observedB?.handoffs[0]).toBe(reached);
    expect(observeFailures(a, listener)).toBe(observedA);
    await expect(reached?.invoke('x')).rejects.toMatchObject({ code: 'agent_failure' });
    expect(reports).toEqual(['helper']);
    const loop: Agent = { ...failing, handoffs: [] };
    (loop.handoffs as Agent[]).push(loop);
    const observedLoop = observeFailures(loop, listener);
    expect(observedLoop.handoffs[0]).toBe(observedLoop);
  });

  it('ignores a listener that throws', async () => {
    const wrapped = observeFailures(failing, () => {
      throw new Error('listener bug');
    });
    await expect(wrapped.invoke('x')).rejects.toMatchObject({ code: 'agent_failure' });
    expect((await collect(wrapped.stream('x'))).at(-1)).toMatchObject({ type: 'error' });
  });
});

describe('retry-safe agents', () => {
  it('keep retrySafe through defineAgent and observeFailures, absent unless declared', () => {
    const safe = defineAgent({
      name: 'safe',
      retrySafe: true,
      async *run() {
        yield { type: 'text-delta', delta: 'x' };
      },
    });
    expect(safe.retrySafe).toBe(true);
    expect(observeFailures(safe, () => undefined).retrySafe).toBe(true);
    const plain = defineAgent({ name: 'plain', async *run() {} });
    expect(plain.retrySafe).toBeUndefined();
    expect(observeFailures(plain, () => undefined).retrySafe).toBeUndefined();
  });
});
