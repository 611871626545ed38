import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { sleep } from './abortable.ts';
import type { AgentEvent } from './agent-event.ts';
import { type AgentRunContext, defineAgent } from './define-agent.ts';
import { AgentFailureError } from './errors/agent-failure-error.ts';
import { CancellationError } from './errors/cancellation-error.ts';
import { InvalidInputError } from './errors/invalid-input-error.ts';
import { MAX_HANDOFF_DEPTH } from './index.ts';
import { defineTool } from './tool.ts';

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const double = defineTool({
  name: 'double',
  parameters: z.object({ n: z.number() }),
  execute: ({ n }) => n * 2,
});

describe('defineAgent', () => {
  it('streams the run events and ends with done carrying the joined text', async () => {
    const agent = defineAgent({
      name: 'words',
      async *run() {
        yield { type: 'text-delta', delta: 'a' };
        yield { type: 'text-delta', delta: 'b' };
      },
    });
    expect(await collect(agent.stream('x'))).toEqual([
      { type: 'text-delta', delta: 'a' },
      { type: 'text-delta', delta: 'b' },
      { type: 'done', output: 'ab' },
    ]);
    await expect(agent.invoke('x')).resolves.toBe('ab');
  });

  it('uses a returned string as the output', async () => {
    const agent = defineAgent({
      name: 'returns',
      async *run(input) {
        yield { type: 'text-delta', delta: 'thinking' };
        return `answer to ${input}`;
      },
    });
    await expect(agent.invoke('q')).resolves.toBe('answer to q');
  });

  it('keeps its identity, tools and handoffs', () => {
    const other = defineAgent({ name: 'other', async *run() {} });
    const agent = defineAgent({
      name: 'full',
      description: 'd',
      instructions: 'i',
      model: 'm',
      tools: [double],
      handoffs: [other],
      async *run() {},
    });
    expect(agent).toMatchObject({ name: 'full', description: 'd', instructions: 'i', model: 'm' });
    expect(agent.tools.map((tool) => tool.name)).toEqual(['double']);
    expect(agent.handoffs.map((handoff) => handoff.name)).toEqual(['other']);
  });

  it.each(['', 'Upper', 'has space', 'a/b', 'x'.repeat(65)])('rejects the name %j', (name) => {
    expect(() => defineAgent({ name, async *run() {} })).toThrow(InvalidInputError);
  });

  it('accepts names of lower-case letters, digits, - and _', () => {
    expect(defineAgent({ name: 'my-agent_2', async *run() {} }).name).toBe('my-agent_2');
  });

  it('refuses two tools with one name', () => {
    expect(() => defineAgent({ name: 'dup', tools: [double, double], async *run() {} })).toThrow(
      /two tools/,
    );
  });

  it('emits tool-call and tool-result around a tool call', async () => {
    const agent = defineAgent({
      name: 'tooled',
      tools: [double],
      async *run(_input, context) {
        const result = yield* context.callTool(double, { n: 21 });
        return String(result);
      },
    });
    const events = await collect(agent.stream('go'));
    expect(events).toMatchObject([
      { type: 'tool-call', name: 'double', input: { n: 21 } },
      { type: 'tool-result', name: 'double', output: 42 },
      { type: 'done', output: '42' },
    ]);
    const [call, result] = events as [AgentEvent & { id: string }, AgentEvent & { id: string }];
    expect(call.id).toMatch(/^call_/);
    expect(result.id).toBe(call.id);
  });

  it.each([
    [
      'a cycle',
      () => {
        const row: Record<string, unknown> = { name: 'widget' };
        row.self = row;
        return row;
      },
    ],
    ['a BigInt', () => ({ total: 10n })],
  ])(
    'fails the run as agent_failure when a tool returns %s, which JSON cannot hold',
    async (_kind, make) => {
      const lookup = defineTool({
        name: 'lookup',
        description: 'Returns what JSON cannot hold',
        parameters: z.object({}),
        execute: make,
      });
      const agent = defineAgent({
        name: 'cyc',
        tools: [lookup],
        async *run(_input, context) {
          yield* context.callTool(lookup, {});
          return 'found';
        },
      });
      const events = await collect(agent.stream('go'));
      expect(events.map((event) => event.type)).toEqual(['tool-call', 'error']);
      expect(events.at(-1)).toEqual({
        type: 'error',
        code: 'agent_failure',
        message: "Agent 'cyc' failed",
      });
      const failure = await agent.invoke('go').catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: 'agent_failure' });
      expect(String((failure as Error).cause)).toMatch(
        /^TypeError: Tool 'lookup' output cannot be sent as JSON/,
      );
    },
  );

  it('fails the run as agent_failure when a tool is called with input JSON cannot hold', async () => {
    const agent = defineAgent({
      name: 'cyc-in',
      tools: [double],
      async *run(_input, context) {
        const input: Record<string, unknown> = { n: 1 };
        input.self = input;
        yield* context.callTool(double, input);
      },
    });
    const events = await collect(agent.stream('go'));
    expect(events).toEqual([
      { type: 'error', code: 'agent_failure', message: "Agent 'cyc-in' failed" },
    ]);
  });

  it('fails the run with invalid_tool_arguments when a tool gets bad arguments', async () => {
    const agent = defineAgent({
      name: 'bad-args',
      tools: [double],
      async *run(_input, context) {
        yield* context.callTool('double', { n: 'x' });
      },
    });
    const events = await collect(agent.stream('go'));
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'invalid_tool_arguments' });
    await expect(agent.invoke('go')).rejects.toMatchObject({ code: 'invalid_tool_arguments' });
  });

  it('hands off to another agent and returns its output', async () => {
    const target = defineAgent({
      name: 'target',
      async *run(input) {
        yield { type: 'text-delta', delta: input.toUpperCase() };
      },
    });
    const agent = defineAgent({
      name: 'router',
      handoffs: [target],
      async *run(input, context) {
        return yield* context.handoff('target', input);
      },
    });
    expect(await collect(agent.stream('hi'))).toEqual([
      { type: 'handoff', from: 'router', to: 'target' },
      { type: 'text-delta', delta: 'HI' },
      { type: 'done', output: 'HI' },
    ]);
  });

  describe('handoff depth', () => {
    /** Hands off to itself `input` times, then answers `landed`. */
    const countdown = defineAgent({
      name: 'countdown',
      async *run(input, context) {
        const left = Number(input);
        if (left === 0) return 'landed';
        return yield* context.handoff(context.agent, String(left - 1));
      },
    });

    it(`allows a run ${MAX_HANDOFF_DEPTH} handoffs deep`, async () => {
      const events = await collect(countdown.stream(String(MAX_HANDOFF_DEPTH)));
      expect(events.filter((event) => event.type === 'handoff')).toHaveLength(MAX_HANDOFF_DEPTH);
      expect(events.at(-1)).toEqual({ type: 'done', output: 'landed' });
    });

    it('ends a handoff loop with agent_failure at the limit, with one error', async () => {
      const ping = defineAgent({
        name: 'ping',
        async *run(input, context) {
          return yield* context.handoff(pong, input);
        },
      });
      const pong = defineAgent({
        name: 'pong',
        async *run(input, context) {
          return yield* context.handoff(ping, input);
        },
      });
      const events = await collect(ping.stream('hi'));
      expect(events.filter((event) => event.type === 'handoff')).toHaveLength(MAX_HANDOFF_DEPTH);
      expect(events).toHaveLength(MAX_HANDOFF_DEPTH + 1);
      expect(events.at(-1)).toEqual({
        type: 'error',
        code: 'agent_failure',
        message: `Agent 'ping' cannot hand off to 'pong': the run is ${MAX_HANDOFF_DEPTH} handoffs deep already (a handoff loop?)`,
      });
      await expect(ping.invoke('hi')).rejects.toBeInstanceOf(AgentFailureError);
    });

    it('counts from each run its caller starts', async () => {
      await expect(countdown.invoke(String(MAX_HANDOFF_DEPTH))).resolves.toBe('landed');
      await expect(countdown.invoke(String(MAX_HANDOFF_DEPTH + 1))).rejects.toMatchObject({
        code: 'agent_failure',
      });
      await expect(countdown.invoke('1')).resolves.toBe('landed');
    });
  });

  it.each([
    [
      'handing off to an agent it does not have',
      (context: AgentRunContext, input: string) => context.handoff('nobody', input),
      "TypeError: Agent 'lost' has no handoff target 'nobody'",
    ],
    [
      'calling a tool it does not have',
      (context: AgentRunContext) => context.callTool('nope', {}),
      "TypeError: Agent 'lost' has no tool 'nope'",
    ],
  ])("fails as agent_failure (its own mistake, not the caller's) %s", async (_what, act, cause) => {
    const agent = defineAgent({
      name: 'lost',
      async *run(input, context) {
        yield* act(context, input);
        return 'unreachable';
      },
    });
    const events = await collect(agent.stream('x'));
    expect(events).toEqual([
      { type: 'error', code: 'agent_failure', message: "Agent 'lost' failed" },
    ]);
    const failure = await agent.invoke('x').catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'agent_failure', status: 500 });
    expect(String((failure as Error).cause)).toBe(cause);
  });

  it('reports a thrown error as a final error event with a safe message', async () => {
    const agent = defineAgent({
      name: 'broken',
      async *run() {
        yield { type: 'text-delta', delta: 'partial' };
        throw new Error('database password is hunter2');
      },
    });
    const events = await collect(agent.stream('x'));
    expect(events).toEqual([
      { type: 'text-delta', delta: 'partial' },
      { type: 'error', code: 'agent_failure', message: "Agent 'broken' failed" },
    ]);
    const error = await agent.invoke('x').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentFailureError);
    expect((error as AgentFailureError).agentName).toBe('broken');
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('fails the run as agent_failure where it yields an event whose fields are not strings', async () => {
    const faults: Array<[unknown, string]> = [
      [{ type: 'text-delta', delta: undefined }, 'a text-delta whose delta is missing'],
      [{ type: 'text-delta', delta: 42 }, 'a text-delta whose delta is a number'],
      [{ type: 'tool-call', name: 'x', input: {} }, 'a tool-call without a string id and name'],
      [{ type: 'tool-result', id: '1', output: 1 }, 'a tool-result without a string id and name'],
      [{ type: 'handoff', from: 'a' }, 'a handoff without string from and to'],
      [{ type: 'done', output: 'early' }, 'a done event (a run returns its output or throws)'],
      [{ type: 'error', code: 'Bad\nCode', message: 'x' }, 'an error event'],
      [{ type: 5 }, 'an event without a one-line string type'],
      [{ delta: 'x' }, 'an event without a one-line string type'],
      [{ type: 'x\ny' }, 'an event without a one-line string type'],
      ['text', 'a string for an event'],
      [null, 'null for an event'],
    ];
    for (const [yielded, fault] of faults) {
      let closed = false;
      const agent = defineAgent({
        name: 'sloppy',
        async *run() {
          try {
            yield { type: 'text-delta', delta: 'ok' };
            yield yielded as AgentEvent & { type: 'text-delta' };
            yield { type: 'text-delta', delta: 'never' };
          } finally {
            closed = true;
          }
        },
      });
      // Iterated, and pushed (as invoke reads it): the same failure, and the run is closed.
      expect(await collect(agent.stream('x')), fault).toEqual([
        { type: 'text-delta', delta: 'ok' },
        { type: 'error', code: 'agent_failure', message: "Agent 'sloppy' failed" },
      ]);
      expect(closed, fault).toBe(true);
      closed = false;
      const error = await agent.invoke('x').catch((caught: unknown) => caught);
      expect(error, fault).toBeInstanceOf(AgentFailureError);
      expect(((error as Error).cause as Error).message, fault).toContain(
        `Agent 'sloppy' yielded ${fault}`,
      );
      expect(closed, fault).toBe(true);
    }
  });

  it('passes an event of another type on as it is', async () => {
    const agent = defineAgent({
      name: 'custom',
      async *run() {
        yield { type: 'progress', percent: 50 } as unknown as AgentEvent & { type: 'text-delta' };
        return 'ok';
      },
    });
    expect(await collect(agent.stream('x'))).toEqual([
      { type: 'progress', percent: 50 },
      { type: 'done', output: 'ok' },
    ]);
  });

  it('passes an AgentPort error through with its own code and message', async () => {
    const agent = defineAgent({
      name: 'picky',
      async *run(input) {
        if (input === 'x') throw new InvalidInputError('no thanks');
        yield { type: 'text-delta', delta: input };
      },
    });
    await expect(agent.invoke('x')).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('ends with a canceled error at once when the signal aborts, even if the run ignores it', async () => {
    let finished = false;
    const agent = defineAgent({
      name: 'stubborn',
      async *run() {
        yield { type: 'text-delta', delta: 'start' };
        await sleep(5_000);
        finished = true;
      },
    });
    const controller = new AbortController();
    const started = Date.now();
    const pending = agent.invoke('x', { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toBeInstanceOf(CancellationError);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(finished).toBe(false);
  });

  it('passes the signal and metadata to the run', async () => {
    const controller = new AbortController();
    let seen: unknown;
    const agent = defineAgent({
      name: 'meta',
      async *run(input, context) {
        seen = { aborted: context.signal.aborted, metadata: context.metadata };
        yield { type: 'text-delta', delta: input };
      },
    });
    await agent.invoke('x', { signal: controller.signal, metadata: { requestId: 'r1' } });
    expect(seen).toEqual({ aborted: false, metadata: { requestId: 'r1' } });
  });

  it('rejects at once when the signal is already aborted', async () => {
    let ran = false;
    const agent = defineAgent({
      name: 'never',
      async *run(input) {
        ran = true;
        yield { type: 'text-delta', delta: input };
      },
    });
    await expect(agent.invoke('x', { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'canceled',
    });
    expect(ran).toBe(false);
  });

  it('runs the run finally block when the consumer stops early', async () => {
    let closed = false;
    const agent = defineAgent({
      name: 'closable',
      async *run() {
        try {
          yield { type: 'text-delta', delta: 'one' };
          yield { type: 'text-delta', delta: 'two' };
        } finally {
          closed = true;
        }
      },
    });
    for await (const event of agent.stream('x')) {
      expect(event.type).toBe('text-delta');
      break;
    }
    expect(closed).toBe(true);
  });

  it('does not close again a run that returned or threw by itself', async () => {
    // A run as a hand-made iterator, to see whether return() is called on it.
    const closes: string[] = [];
    const runOf = (outcome: 'return' | 'throw') =>
      function run(): AsyncGenerator<never, string> {
        const iterator = {
          next: () =>
            outcome === 'return'
              ? Promise.resolve({ done: true as const, value: 'fine' })
              : Promise.reject(new Error('broke')),
          return: () => {
            closes.push(outcome);
            return Promise.resolve({ done: true as const, value: '' });
          },
          throw: (error: unknown) => Promise.reject(error),
          [Symbol.asyncIterator]: () => iterator,
        };
        return iterator as unknown as AsyncGenerator<never, string>;
      };
    const returning = defineAgent({ name: 'returning', run: runOf('return') });
    await expect(returning.invoke('x')).resolves.toBe('fine');
    expect(await collect(returning.stream('x'))).toEqual([{ type: 'done', output: 'fine' }]);
    const throwing = defineAgent({ name: 'throwing', run: runOf('throw') });
    await expect(throwing.invoke('x')).rejects.toThrow();
    expect((await collect(throwing.stream('x'))).at(-1)).toMatchObject({ type: 'error' });
    expect(closes).toEqual([]);
  });

  it('answers a next() asked before the previous one settled, in order', async () => {
    const agent = defineAgent({
      name: 'eager',
      async *run() {
        yield { type: 'text-delta', delta: 'a' };
        await sleep(5);
        yield { type: 'text-delta', delta: 'b' };
      },
    });
    const iterator = agent.stream('x')[Symbol.asyncIterator]();
    const steps = await Promise.all([iterator.next(), iterator.next(), iterator.next()]);
    expect(steps.map((step) => step.value)).toEqual([
      { type: 'text-delta', delta: 'a' },
      { type: 'text-delta', delta: 'b' },
      { type: 'done', output: 'ab' },
    ]);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('never calls run for a stream closed before it started', async () => {
    let ran = false;
    const agent = defineAgent({
      name: 'unread',
      run: () => {
        ran = true;
        throw new Error('not expected');
      },
    });
    const iterator = agent.stream('x')[Symbol.asyncIterator]();
    expect(await iterator.return?.()).toEqual({ done: true, value: undefined });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(ran).toBe(false);
  });

  it('closes the run after the step it waits for when closed meanwhile', async () => {
    let closed = false;
    const agent = defineAgent({
      name: 'slow',
      async *run() {
        try {
          await sleep(5);
          yield { type: 'text-delta', delta: 'one' };
          yield { type: 'text-delta', delta: 'two' };
        } finally {
          closed = true;
        }
      },
    });
    const iterator = agent.stream('x')[Symbol.asyncIterator]();
    const first = iterator.next();
    const closing = iterator.return?.();
    expect((await first).value).toEqual({ type: 'text-delta', delta: 'one' });
    expect(await closing).toEqual({ done: true, value: undefined });
    expect(closed).toBe(true);
  });

  it('gives a context whose helpers also work destructured', async () => {
    const agent = defineAgent({
      name: 'destructured',
      tools: [double],
      async *run(input, { callTool, metadata, agent: self }) {
        const doubled = yield* callTool<number>('double', { n: Number(input) });
        return `${self.name} ${doubled} ${Object.keys(metadata).length}`;
      },
    });
    await expect(agent.invoke('21')).resolves.toBe('destructured 42 0');
  });

  it('never listens to the signal for a run that ends within the microtasks it started in', async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const agent = defineAgent({
      name: 'tidy',
      async *run() {
        yield { type: 'text-delta', delta: 'a' };
      },
    });
    await agent.invoke('x', { signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    // Nor when started from a process.nextTick callback, as a request's `end` handler runs.
    await new Promise((resolve) => {
      process.nextTick(() => resolve(agent.invoke('x', { signal: controller.signal })));
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(add).not.toHaveBeenCalled();
  });

  it('listens to the signal while a run outlives its first microtasks, and stops once it ended', async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    const agent = defineAgent({
      name: 'patient',
      async *run() {
        await sleep(5);
        yield { type: 'text-delta', delta: 'a' };
      },
    });
    await agent.invoke('x', { signal: controller.signal });
    expect(add).toHaveBeenCalledTimes(1);
    expect(remove).toHaveBeenCalledWith('abort', add.mock.calls[0]?.[1]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('ends with a canceled error when the signal aborts before it listens to it', async () => {
    const controller = new AbortController();
    const agent = defineAgent({
      name: 'stuck',
      async *run() {
        yield { type: 'text-delta', delta: 'a' };
        await new Promise(() => {});
      },
    });
    const events = agent.stream('x', { signal: controller.signal })[Symbol.asyncIterator]();
    await events.next();
    const pending = events.next();
    // Still within the microtasks the run started in: nothing listens to the signal yet.
    controller.abort();
    await expect(pending).resolves.toMatchObject({ value: { type: 'error', code: 'canceled' } });
  });

  it('leaves no listener on the signal once a canceled or abandoned stream has ended', async () => {
    const agent = defineAgent({
      name: 'slow',
      async *run() {
        yield { type: 'text-delta', delta: 'a' };
        await sleep(50);
        yield { type: 'text-delta', delta: 'b' };
      },
    });
    const canceled = new AbortController();
    const events = agent.stream('x', { signal: canceled.signal });
    await events[Symbol.asyncIterator]().next();
    setTimeout(() => canceled.abort(), 5);
    const rest = await collect(events);
    expect(rest.at(-1)).toMatchObject({ type: 'error', code: 'canceled' });
    expect(getEventListeners(canceled.signal, 'abort')).toHaveLength(0);

    const abandoned = new AbortController();
    for await (const event of agent.stream('x', { signal: abandoned.signal })) {
      expect(event).toMatchObject({ type: 'text-delta' });
      break;
    }
    expect(getEventListeners(abandoned.signal, 'abort')).toHaveLength(0);
  });

  describe('pushed to an observer instead of iterated', () => {
    const PUSH_EVENTS = Symbol.for('agentport.agent-events.push');
    type Pushable = Record<symbol, (observer: unknown) => void>;

    function observe(stream: AsyncIterable<AgentEvent>, stopAfter = Number.POSITIVE_INFINITY) {
      const events: AgentEvent[] = [];
      const errors: unknown[] = [];
      const completed = new Promise<void>((resolve) => {
        (stream as unknown as Pushable)[PUSH_EVENTS]?.({
          next(event: AgentEvent) {
            events.push(event);
            return events.length < stopAfter;
          },
          error(error: unknown) {
            errors.push(error);
            resolve();
          },
          complete: resolve,
        });
      });
      return { events, errors, completed };
    }

    it('pushes every event, then completes once the run is closed', async () => {
      let closed = false;
      const agent = defineAgent({
        name: 'pushed',
        async *run() {
          try {
            yield { type: 'text-delta', delta: 'a' };
            await sleep(2);
            yield { type: 'text-delta', delta: 'b' };
          } finally {
            closed = true;
          }
        },
      });
      const { events, completed } = observe(agent.stream('x'));
      await completed;
      expect(events).toEqual([
        { type: 'text-delta', delta: 'a' },
        { type: 'text-delta', delta: 'b' },
        { type: 'done', output: 'ab' },
      ]);
      expect(closed).toBe(true);
    });

    it('stops and closes the run when the observer asks no more', async () => {
      let closed = false;
      const agent = defineAgent({
        name: 'stopped',
        async *run() {
          try {
            yield { type: 'text-delta', delta: 'a' };
            yield { type: 'text-delta', delta: 'b' };
          } finally {
            closed = true;
          }
        },
      });
      const { events, completed } = observe(agent.stream('x'), 1);
      await completed;
      expect(events).toEqual([{ type: 'text-delta', delta: 'a' }]);
      expect(closed).toBe(true);
    });

    it('pushes a canceled error at once when the signal aborts, even if the run ignores it', async () => {
      const agent = defineAgent({
        name: 'deaf',
        async *run() {
          yield { type: 'text-delta', delta: 'a' };
          await sleep(5_000);
        },
      });
      const controller = new AbortController();
      const { events, completed } = observe(agent.stream('x', { signal: controller.signal }));
      await expect.poll(() => events.length).toBe(1);
      controller.abort();
      await completed;
      expect(events.at(-1)).toMatchObject({ type: 'error', code: 'canceled' });
    });

    it('reports a run function that throws at the start through error()', async () => {
      const agent = defineAgent({
        name: 'broken-start',
        run: () => {
          throw new Error('boom');
        },
      });
      const { events, errors, completed } = observe(agent.stream('x'));
      await completed;
      expect(events).toEqual([]);
      expect(errors).toEqual([new Error('boom')]);
    });

    it('is either pushed or iterated, not both', async () => {
      const agent = defineAgent({
        name: 'once',
        async *run() {
          yield { type: 'text-delta', delta: 'a' };
        },
      });
      const pushed = agent.stream('x');
      const { completed } = observe(pushed);
      await expect(pushed[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(TypeError);
      await completed;
      const iterated = agent.stream('x');
      await iterated[Symbol.asyncIterator]().next();
      expect(() => (iterated as unknown as Pushable)[PUSH_EVENTS]?.({})).toThrow(TypeError);
    });
  });
});

describe('input and output modes', () => {
  it('keeps the media types an agent takes and gives, also through observeFailures', async () => {
    const { observeFailures } = await import('./observe-failures.ts');
    const agent = defineAgent({
      name: 'reader',
      inputModes: ['text/plain', 'image/png'],
      outputModes: ['text/plain'],
      async *run() {},
    });
    expect(agent.inputModes).toEqual(['text/plain', 'image/png']);
    expect(observeFailures(agent, () => undefined).outputModes).toEqual(['text/plain']);
    expect(defineAgent({ name: 'plain', async *run() {} }).inputModes).toBeUndefined();
  });
});
