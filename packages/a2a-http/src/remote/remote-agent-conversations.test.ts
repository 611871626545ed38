import { type AgentEvent, createTaskRunner, InputRequiredError } from '@agentport/core';
import { createAssistantAgent, createBookingAgent } from '@agentport/core/agents';
import { afterEach, describe, expect, it } from 'vitest';
import { type A2AHttpServer, createA2AHttpServer } from '../server/create-a2a-http-server.ts';
import { type Served, serve } from '../testing/serve.ts';
import { createRemoteAgent } from './create-remote-agent.ts';

const served: Served[] = [];

afterEach(async () => {
  await Promise.all(served.splice(0).map((server) => server.stop()));
});

async function remoteOf(server: A2AHttpServer) {
  const started = await serve(server);
  served.push(started);
  return createRemoteAgent({ baseUrl: started.url });
}

const text = (value: string) => [{ kind: 'text', text: value }];

describe('a remote agent whose remote task pauses for input', () => {
  it('pauses the local task with the remote question, and answers the same remote task', async () => {
    const server = createA2AHttpServer({ agent: createBookingAgent() });
    const remote = await remoteOf(server);
    const runner = createTaskRunner({ agent: remote });
    const first = await runner.submitAndWait('a table', { timeoutMs: 5000 });
    expect(first.status).toBe('input-required');
    expect(first.statusMessage?.parts).toEqual(text('For how many people?'));
    expect(first.inputRequest?.schema).toEqual({ type: 'integer', minimum: 1, maximum: 20 });
    const { remoteTaskId } = (first.inputRequest?.state ?? {}) as { remoteTaskId: string };
    // Paused over there too, not canceled: it waits for the answer.
    expect((await server.runner.get(remoteTaskId)).status).toBe('input-required');

    const second = await runner.resumeAndWait(first.id, '4', { timeoutMs: 5000 });
    expect(second.status).toBe('input-required');
    expect(second.statusMessage?.parts).toEqual(text('What time? (HH:MM)'));
    expect(second.inputRequest?.state).toEqual({ remoteTaskId });

    const third = await runner.resumeAndWait(first.id, '19:30', { timeoutMs: 5000 });
    expect(third).toMatchObject({ status: 'completed', output: 'Booked a table for 4 at 19:30.' });
    expect((await server.runner.get(remoteTaskId)).status).toBe('completed');
    expect((await server.runner.list()).tasks).toHaveLength(1);
    await runner.close();
  });

  it('ends a stream with an input-required event, and rejects an invoke with InputRequiredError', async () => {
    const remote = await remoteOf(createA2AHttpServer({ agent: createBookingAgent() }));
    const events: AgentEvent[] = [];
    for await (const event of remote.stream('a table')) events.push(event);
    expect(events.at(-1)).toMatchObject({
      type: 'input-required',
      question: text('For how many people?'),
      state: { remoteTaskId: expect.any(String) },
    });
    const invoked = await remote.invoke('a table').catch((error: unknown) => error);
    expect(invoked).toBeInstanceOf(InputRequiredError);
  });

  it('answers a remote pause on the long-poll path too (invoke with resumeState)', async () => {
    const server = createA2AHttpServer({ agent: createBookingAgent() });
    const remote = await remoteOf(server);
    const paused = (await remote
      .invoke('hi')
      .catch((error: unknown) => error)) as InputRequiredError;
    const state = paused.event.state;
    const next = await remote.invoke('5', { resumeState: state }).catch((error: unknown) => error);
    expect((next as InputRequiredError).event.question).toEqual(text('What time? (HH:MM)'));
    expect(await remote.invoke('12:00', { resumeState: state })).toBe(
      'Booked a table for 5 at 12:00.',
    );
    expect((await server.runner.list()).tasks).toHaveLength(1);
  });

  it('sends the parts of its message to the remote', async () => {
    const remote = await remoteOf(createA2AHttpServer({ agent: createAssistantAgent() }));
    const output = await remote.invoke({
      messageId: 'm-1',
      role: 'user',
      parts: [
        { kind: 'text', text: 'describe the parts' },
        { kind: 'data', data: { n: 1 } },
      ],
    });
    expect(output).toBe('text text/plain 18 bytes\ndata application/json 7 bytes');
  });
});
