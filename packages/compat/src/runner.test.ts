import {
  type Agent,
  type AgentEvent,
  AgentFailureError,
  AgentNotFoundError,
  type AgentRunFunction,
  CancellationError,
  DuplicateAgentError,
  defineAgent,
  defineTool,
  InvalidInputError,
} from '@agentport/core';
import { createAssistantAgent, createBookingAgent, createEchoAgent } from '@agentport/core/agents';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createRunner } from './runner.ts';

const double = defineTool({
  name: 'double',
  parameters: z.object({ n: z.number() }),
  execute: ({ n }) => n * 2,
});
const shout = defineTool({
  name: 'shout',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text.toUpperCase(),
});

function simpleAgent(name: string, run: AgentRunFunction, extra: { handoffs?: Agent[] } = {}) {
  return defineAgent({ name, run, ...extra });
}

describe('createRunner', () => {
  it('needs at least one agent', () => {
    expect(() => createRunner({ agents: [] })).toThrow(InvalidInputError);
  });

  it('names the options object when the agents are not given in one', () => {
    const untyped = createRunner as (...values: unknown[]) => unknown;
    for (const call of [() => untyped(), () => untyped(createEchoAgent())]) {
      expect(call).toThrow(InvalidInputError);
      expect(call).toThrow('createRunner takes { agents }, an array of agents');
    }
  });

  it('rejects two registered agents with the same name', () => {
    expect(() => createRunner({ agents: [createEchoAgent(), createEchoAgent()] })).toThrow(
      DuplicateAgentError,
    );
  });

  it('rejects two different handoff targets with the same name', () => {
    const first = defineAgent({ name: 'first', handoffs: [createEchoAgent()], async *run() {} });
    const second = defineAgent({ name: 'second', handoffs: [createEchoAgent()], async *run() {} });
    expect(() => createRunner({ agents: [first, second] })).toThrow(DuplicateAgentError);
  });

  it('lets a registered agent stand for a handoff target of the same name', () => {
    const runner = createRunner({ agents: [createAssistantAgent(), createEchoAgent()] });
    expect(runner.listAgents().map((definition) => definition.name)).toEqual(['assistant', 'echo']);
  });

  it('lists every agent, handoff targets at any depth included, sorted by name', () => {
    const leaf = createEchoAgent('c-leaf');
    const middle = defineAgent({ name: 'a-middle', handoffs: [leaf], async *run() {} });
    const top = defineAgent({ name: 'z-top', handoffs: [middle], async *run() {} });
    const runner = createRunner({ agents: [top, createEchoAgent('b-other')] });
    expect(runner.listAgents().map((definition) => definition.name)).toEqual([
      'a-middle',
      'b-other',
      'c-leaf',
      'z-top',
    ]);
    expect(runner.getAgentDef('c-leaf')).toEqual({
      name: 'c-leaf',
      instructions: 'Repeat the input exactly.',
      model: 'agentport/echo',
    });
  });

  it('throws a not-found error naming an unknown agent', () => {
    const runner = createRunner({ agents: [createEchoAgent()] });
    expect(() => runner.getAgentDef('nobody')).toThrow(AgentNotFoundError);
    expect(() => runner.getAgentDef('nobody')).toThrow("Agent 'nobody' not found");
  });

  it('hands out copies that callers cannot use to change the runner', () => {
    const runner = createRunner({ agents: [createEchoAgent()] });
    const [definition] = runner.listAgents();
    if (definition) definition.name = 'changed';
    expect(runner.listAgents()[0]?.name).toBe('echo');
  });
});

describe('Runner.run', () => {
  it('answers the output and the agent that produced it', async () => {
    const runner = createRunner({ agents: [createEchoAgent()] });
    await expect(runner.run({ agent_name: 'echo', input: 'hello there' })).resolves.toEqual({
      output: 'hello there',
      agent: 'echo',
      conversation_id: expect.any(String),
    });
  });

  it('collects every tool call in order with JSON input and text output', async () => {
    const agent = defineAgent({
      name: 'worker',
      tools: [double, shout],
      async *run(_input, context) {
        const doubled = yield* context.callTool(double, { n: 21 });
        const loud = yield* context.callTool(shout, { text: 'hi' });
        const again = yield* context.callTool(double, { n: doubled });
        return `${loud} ${again}`;
      },
    });
    const response = await createRunner({ agents: [agent] }).run({
      agent_name: 'worker',
      input: 'go',
    });
    expect(response).toEqual({
      output: 'HI 84',
      agent: 'worker',
      tool_calls: [
        { name: 'double', input: '{"n":21}', output: '42' },
        { name: 'shout', input: '{"text":"hi"}', output: 'HI' },
        { name: 'double', input: '{"n":42}', output: '84' },
      ],
      conversation_id: expect.any(String),
    });
  });

  it('reports the handoff target as the agent that produced the output', async () => {
    const runner = createRunner({ agents: [createAssistantAgent()] });
    await expect(runner.run({ agent_name: 'assistant', input: 'repeat hi you' })).resolves.toEqual({
      output: 'hi you',
      agent: 'echo',
      conversation_id: expect.any(String),
    });
  });

  it('follows nested handoffs to the last agent and keeps their tool calls', async () => {
    const leaf = defineAgent({
      name: 'leaf',
      tools: [double],
      async *run(input, context) {
        const result = yield* context.callTool(double, { n: Number(input) });
        return `leaf says ${result}`;
      },
    });
    const middle = defineAgent({
      name: 'middle',
      handoffs: [leaf],
      async *run(input, context) {
        return yield* context.handoff(leaf, input);
      },
    });
    const top = defineAgent({
      name: 'top',
      handoffs: [middle],
      async *run(input, context) {
        return yield* context.handoff('middle', input);
      },
    });
    const runner = createRunner({ agents: [top] });
    await expect(runner.run({ agent_name: 'top', input: '4' })).resolves.toEqual({
      output: 'leaf says 8',
      agent: 'leaf',
      tool_calls: [{ name: 'double', input: '{"n":4}', output: '8' }],
      conversation_id: expect.any(String),
    });
    await expect(runner.run({ agent_name: 'middle', input: '1' })).resolves.toMatchObject({
      agent: 'leaf',
    });
  });

  it('rejects an unknown agent with a not-found error naming it', async () => {
    const runner = createRunner({ agents: [createEchoAgent()] });
    const failure = runner.run({ agent_name: 'ghost', input: 'x' });
    await expect(failure).rejects.toBeInstanceOf(AgentNotFoundError);
    await expect(failure).rejects.toThrow("Agent 'ghost' not found");
    expect(() => runner.run({ agent_name: 'ghost', input: 'x', stream: true })).toThrow(
      AgentNotFoundError,
    );
  });

  it('rejects a malformed request with an invalid-input error naming the field', async () => {
    const runner = createRunner({ agents: [createEchoAgent()] });
    const request = { agent_name: 'echo', input: 42 } as unknown as {
      agent_name: string;
      input: string;
    };
    await expect(runner.run(request)).rejects.toThrow(InvalidInputError);
    await expect(runner.run(request)).rejects.toThrow(/^input: /);
  });

  it('rejects with an error naming the agent that failed, without its secrets', async () => {
    const broken = simpleAgent('broken', async function* () {
      yield { type: 'text-delta', delta: 'partial' };
      throw new Error('database password=hunter2');
    });
    const runner = createRunner({ agents: [broken] });
    const failure = runner.run({ agent_name: 'broken', input: 'x' });
    await expect(failure).rejects.toBeInstanceOf(AgentFailureError);
    await expect(failure).rejects.toMatchObject({
      agentName: 'broken',
      code: 'agent_failure',
      message: "Agent 'broken' failed",
    });
  });

  it('names the handoff target when it is the one that failed', async () => {
    const broken = simpleAgent('broken', async function* () {
      yield { type: 'text-delta', delta: 'partial' };
      throw new Error('boom');
    });
    const parent = simpleAgent(
      'parent',
      async function* (input, context) {
        return yield* context.handoff(broken, input);
      },
      { handoffs: [broken] },
    );
    await expect(
      createRunner({ agents: [parent] }).run({ agent_name: 'parent', input: 'x' }),
    ).rejects.toMatchObject({ agentName: 'broken' });
  });

  it('reports an agent that is not built with defineAgent and throws as a failure', async () => {
    const raw: Agent = {
      name: 'raw',
      tools: [],
      handoffs: [],
      invoke: async () => 'unused',
      stream: () => ({
        [Symbol.asyncIterator]: () => ({
          next: () => Promise.reject(new Error('raw failure')),
        }),
      }),
    };
    const runner = createRunner({ agents: [raw] });
    await expect(runner.run({ agent_name: 'raw', input: 'x' })).rejects.toMatchObject({
      code: 'agent_failure',
      agentName: 'raw',
    });
    const events = [];
    for await (const event of runner.run({ agent_name: 'raw', input: 'x', stream: true })) {
      events.push(event);
    }
    expect(events).toEqual([
      { type: 'error', code: 'agent_failure', message: "Agent 'raw' failed" },
    ]);
  });

  /** An agent not built with defineAgent, yielding `events` as its whole run. */
  function handWritten(name: string, events: unknown[]): Agent {
    return {
      name,
      tools: [],
      handoffs: [],
      invoke: async () => 'unused',
      async *stream() {
        yield* events as AgentEvent[];
      },
    };
  }

  it('fails as agent_failure, not "[object Object]", on a tool output JSON cannot hold', async () => {
    const row: Record<string, unknown> = {};
    row.self = row;
    const agent = handWritten('hand', [
      { type: 'tool-call', id: 'c1', name: 'lookup', input: {} },
      { type: 'tool-result', id: 'c1', name: 'lookup', output: row },
      { type: 'done', output: 'found' },
    ]);
    await expect(
      createRunner({ agents: [agent] }).run({ agent_name: 'hand', input: 'x' }),
    ).rejects.toMatchObject({ code: 'agent_failure', agentName: 'hand' });
  });

  it("answers a hand-written agent's invalid_input error event as 400, as a defineAgent one", async () => {
    const agent = handWritten('hand', [{ type: 'error', code: 'invalid_input', message: 'nope' }]);
    await expect(
      createRunner({ agents: [agent] }).run({ agent_name: 'hand', input: 'x' }),
    ).rejects.toMatchObject({ code: 'invalid_input', message: 'nope', status: 400 });
  });

  it('fails as agent_failure on a final output that is not a string', async () => {
    const agent = handWritten('hand', [{ type: 'done', output: 42 }]);
    const failure = await createRunner({ agents: [agent] })
      .run({ agent_name: 'hand', input: 'x' })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'agent_failure', message: "Agent 'hand' failed" });
    expect(String((failure as Error).cause)).toContain('number output, not a string');
  });

  it('aborts the agent when the signal aborts and rejects with a cancellation error', async () => {
    let sawAbort = false;
    const waiting = simpleAgent('waiting', async function* (_input, context) {
      yield { type: 'text-delta', delta: 'waiting' };
      await new Promise<void>((resolve) => {
        context.signal.addEventListener('abort', () => {
          sawAbort = true;
          resolve();
        });
      });
    });
    const controller = new AbortController();
    const run = createRunner({ agents: [waiting] }).run(
      { agent_name: 'waiting', input: 'x' },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 20);
    await expect(run).rejects.toBeInstanceOf(CancellationError);
    expect(sawAbort).toBe(true);
  });
});

describe('Runner.run with stream: true', () => {
  it('yields the events as they happen, ending with done', async () => {
    const runner = createRunner({ agents: [createAssistantAgent()] });
    const types: string[] = [];
    for await (const event of runner.run({
      agent_name: 'assistant',
      input: 'what is 6 * 7',
      stream: true,
    })) {
      types.push(event.type);
      if (event.type === 'done') expect(event.output).toBe('6 * 7 = 42');
    }
    expect(types).toEqual(['tool-call', 'tool-result', 'text-delta', 'done']);
  });

  it('delivers an event before the agent has finished', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = defineAgent({
      name: 'slow',
      async *run() {
        yield { type: 'text-delta', delta: 'first' };
        await gate;
        yield { type: 'text-delta', delta: ' second' };
      },
    });
    const iterator = createRunner({ agents: [slow] })
      .run({ agent_name: 'slow', input: 'x', stream: true })
      [Symbol.asyncIterator]();
    await expect(iterator.next()).resolves.toEqual({
      done: false,
      value: { type: 'text-delta', delta: 'first' },
    });
    release();
    expect((await iterator.next()).value).toEqual({ type: 'text-delta', delta: ' second' });
    expect((await iterator.next()).value).toEqual({ type: 'done', output: 'first second' });
    expect((await iterator.next()).done).toBe(true);
  });

  it('ends with an error event when the signal aborts', async () => {
    const controller = new AbortController();
    const waiting = simpleAgent('waiting', async function* (_input, context) {
      yield { type: 'text-delta', delta: 'waiting' };
      await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
    });
    const events = createRunner({ agents: [waiting] }).run(
      { agent_name: 'waiting', input: 'x', stream: true },
      { signal: controller.signal },
    );
    const seen = [];
    for await (const event of events) {
      seen.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    expect(seen).toEqual([
      { type: 'text-delta', delta: 'waiting' },
      { type: 'error', code: 'canceled', message: 'The run was canceled' },
    ]);
  });

  it('hands the agent the earlier input items as history, or the history its options give', async () => {
    const runner = createRunner({ agents: [createAssistantAgent()] });
    const outputOf = async (events: AsyncIterable<AgentEvent>) => {
      let last: AgentEvent | undefined;
      for await (const event of events) last = event;
      return last;
    };
    const input = [
      { role: 'user' as const, content: 'I like tea' },
      { role: 'user' as const, content: 'what did I say?' },
    ];
    await expect(
      outputOf(runner.run({ agent_name: 'assistant', input, stream: true })),
    ).resolves.toEqual({ type: 'done', output: 'I like tea' });
    const history = [
      {
        messageId: 'm1',
        role: 'user' as const,
        parts: [{ kind: 'text' as const, text: 'from the store' }],
      },
    ];
    await expect(
      outputOf(runner.run({ agent_name: 'assistant', input, stream: true }, { history })),
    ).resolves.toEqual({ type: 'done', output: 'from the store' });
  });

  it('ends with the input-required event of a run that pauses', async () => {
    const runner = createRunner({ agents: [createBookingAgent()] });
    const events: AgentEvent[] = [];
    for await (const event of runner.run({ agent_name: 'booking', input: 'hi', stream: true })) {
      events.push(event);
    }
    expect(events.at(-1)).toMatchObject({
      type: 'input-required',
      question: [{ kind: 'text', text: 'For how many people?' }],
    });
  });
});
