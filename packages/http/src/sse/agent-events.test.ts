import { type AgentEvent, defineAgent } from '@agentport/core';
import { describe, expect, it, vi } from 'vitest';
import { createUnserialisableAgent } from '../testing/agents.ts';
import { parseSSE } from '../testing/sse.ts';
import { pumpAgentEvents, writeAgentEvents } from './agent-events.ts';
import { createSSEWriter, type SSEWriter } from './sse-writer.ts';

function openStream() {
  let writer: SSEWriter | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      writer = createSSEWriter(controller, { heartbeatMs: 0 });
    },
  });
  if (writer === undefined) throw new Error('the stream did not start');
  return { writer, text: () => new Response(stream).text() };
}

/** A hand-written event stream that records whether it was closed early. */
function eventsOf(events: AgentEvent[]) {
  let index = 0;
  const closed = vi.fn(() => Promise.resolve({ done: true as const, value: undefined }));
  const iterable: AsyncIterable<AgentEvent> = {
    [Symbol.asyncIterator]: () => ({
      next: () =>
        Promise.resolve(
          index < events.length
            ? { done: false as const, value: events[index++] as AgentEvent }
            : { done: true as const, value: undefined },
        ),
      return: closed,
    }),
  };
  return { iterable, closed };
}

/** An object that holds itself, which JSON cannot serialise. */
/** Writes `events` and checks they read as one event (id 1), then `agent_failure` (id 2). */
async function expectFailureSecond(events: AsyncIterable<AgentEvent>, agentName: string) {
  const { writer, text } = openStream();
  await writeAgentEvents(events, writer, agentName);
  writer.close();
  const parsed = parseSSE(await text()).events;
  expect(parsed.map((event) => [event.event, event.id])).toEqual([
    ['text-delta', '1'],
    ['error', '2'],
  ]);
  expect(JSON.parse(parsed[1]?.data ?? '')).toEqual({
    code: 'agent_failure',
    message: `Agent '${agentName}' failed`,
  });
}

function cycle(): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  value.self = value;
  return value;
}

describe('writeAgentEvents', () => {
  it('writes each event with ids from 1, stops at done and closes the stream of events', async () => {
    const { writer, text } = openStream();
    const { iterable, closed } = eventsOf([
      { type: 'text-delta', delta: 'a' },
      { type: 'done', output: 'a' },
      { type: 'text-delta', delta: 'never written' },
    ]);
    await writeAgentEvents(iterable, writer, 'agent');
    expect(closed).toHaveBeenCalledTimes(1);
    expect(writer.closed).toBe(false);
    writer.close();
    expect(parseSSE(await text()).events).toEqual([
      { event: 'text-delta', id: '1', data: '{"delta":"a"}' },
      { event: 'done', id: '2', data: '{"output":"a"}' },
    ]);
  });

  it('stops reading and closes the stream of events once the writer has ended', async () => {
    const { writer } = openStream();
    writer.close();
    const { iterable, closed } = eventsOf([
      { type: 'text-delta', delta: 'a' },
      { type: 'text-delta', delta: 'b' },
    ]);
    await writeAgentEvents(iterable, writer, 'agent');
    expect(closed).toHaveBeenCalledTimes(1);
  });

  it('ends with a safe agent_failure event when the stream of events rejects', async () => {
    const { writer, text } = openStream();
    const failing: AsyncIterable<AgentEvent> = {
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('secret')) }),
    };
    await writeAgentEvents(failing, writer, 'agent');
    writer.close();
    const { events } = parseSSE(await text());
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: 'error', id: '1' });
    expect(JSON.parse(events[0]?.data ?? '')).toEqual({
      code: 'agent_failure',
      message: "Agent 'agent' failed",
    });
  });

  it('ends with agent_failure when the events cannot even be iterated', async () => {
    const { writer, text } = openStream();
    const broken = {
      [Symbol.asyncIterator]: () => {
        throw new Error('secret');
      },
    } as AsyncIterable<AgentEvent>;
    await writeAgentEvents(broken, writer, 'agent');
    writer.close();
    const { events } = parseSSE(await text());
    expect(events.map((event) => event.event)).toEqual(['error']);
    expect(events[0]?.data).not.toContain('secret');
  });

  it('ends with agent_failure when the stream of events stops without done', async () => {
    const { writer, text } = openStream();
    const { iterable, closed } = eventsOf([{ type: 'text-delta', delta: 'half' }]);
    await writeAgentEvents(iterable, writer, 'agent');
    writer.close();
    const { events } = parseSSE(await text());
    expect(events.map((event) => [event.event, event.id])).toEqual([
      ['text-delta', '1'],
      ['error', '2'],
    ]);
    expect(JSON.parse(events[1]?.data ?? '')).toMatchObject({ code: 'agent_failure' });
    expect(closed).not.toHaveBeenCalled();
  });
});

describe('pumpAgentEvents', () => {
  it('writes the events and closes the writer at the end', async () => {
    const { writer, text } = openStream();
    const { iterable } = eventsOf([
      { type: 'text-delta', delta: 'a' },
      { type: 'done', output: 'a' },
    ]);
    pumpAgentEvents(iterable, writer, 'agent');
    expect(writer.closed).toBe(false);
    expect(parseSSE(await text()).events.map((event) => event.event)).toEqual([
      'text-delta',
      'done',
    ]);
    expect(writer.closed).toBe(true);
  });
});

describe('writing a stream that pushes its events', () => {
  it('takes the events pushed by a defineAgent stream instead of iterating it', async () => {
    const agent = defineAgent({
      name: 'pusher',
      async *run() {
        yield { type: 'text-delta', delta: 'a' };
      },
    });
    const events = agent.stream('x');
    const iterate = vi.spyOn(events, Symbol.asyncIterator);
    const { writer, text } = openStream();
    await writeAgentEvents(events, writer, 'pusher');
    writer.close();
    expect(iterate).not.toHaveBeenCalled();
    expect(parseSSE(await text()).events).toEqual([
      { event: 'text-delta', id: '1', data: '{"delta":"a"}' },
      { event: 'done', id: '2', data: '{"output":"a"}' },
    ]);
  });

  it('ends with agent_failure when an event cannot be written, pushed or pulled', async () => {
    const bad = { type: 'text-delta\nevent: injected', delta: 'x' } as unknown as AgentEvent;
    const pushed = defineAgent({
      name: 'injector',
      async *run() {
        yield bad as never;
      },
    }).stream('x');
    const { iterable: pulled, closed } = eventsOf([bad]);
    for (const events of [pushed, pulled]) {
      const { writer, text } = openStream();
      await writeAgentEvents(events, writer, 'injector');
      writer.close();
      const parsed = parseSSE(await text()).events;
      expect(parsed.map((event) => [event.event, event.id])).toEqual([['error', '1']]);
      // The agent's event is at fault, not the caller's request.
      expect(JSON.parse(parsed[0]?.data ?? '')).toEqual({
        code: 'agent_failure',
        message: "Agent 'injector' failed",
      });
    }
    expect(closed).toHaveBeenCalledTimes(1);
  });

  it('ends with agent_failure in place of a done event whose output is not a string', async () => {
    const { iterable } = eventsOf([
      { type: 'text-delta', delta: 'a' },
      { type: 'done', output: 42 as unknown as string },
    ]);
    await expectFailureSecond(iterable, 'numeric');
  });

  it.each([
    ['a BigInt', 10n],
    ['a cycle', cycle()],
  ])(
    'numbers the agent_failure event for an event holding %s right after the last one written, pushed or pulled',
    async (_, input) => {
      const before: AgentEvent = { type: 'text-delta', delta: 'before' };
      const unserialisable: AgentEvent = { type: 'tool-call', id: '1', name: 'x', input };
      const pushed = createUnserialisableAgent(input).stream('x');
      const { iterable: pulled } = eventsOf([before, unserialisable]);
      for (const events of [pushed, pulled]) await expectFailureSecond(events, 'unserialisable');
    },
  );
});
