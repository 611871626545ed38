import { createAssistantAgent, createBookingAgent, createEchoAgent } from '@agentport/core/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteHttpError } from '../errors/remote-http-error.ts';
import { RemoteTaskNotFoundError } from '../errors/remote-task-not-found-error.ts';
import { createA2AHttpServer } from '../server/create-a2a-http-server.ts';
import { type Served, serve } from '../testing/serve.ts';
import { createA2AHttpClient } from './create-a2a-http-client.ts';

let booking: Served;
let assistant: Served;
let echo: Served;

beforeAll(async () => {
  booking = await serve(createA2AHttpServer({ agent: createBookingAgent() }));
  assistant = await serve(createA2AHttpServer({ agent: createAssistantAgent() }));
  echo = await serve(createA2AHttpServer({ agent: createEchoAgent() }));
});

afterAll(async () => {
  await Promise.all([booking.stop(), assistant.stop(), echo.stop()]);
});

const textOfStatus = (task: { statusMessage?: { parts: readonly { kind: string }[] } }) =>
  task.statusMessage?.parts[0];

describe('the client in a conversation with a real server', () => {
  it('completes the booking conversation with createTask and sendMessage, each long-polled', async () => {
    const client = createA2AHttpClient({ baseUrl: booking.url });
    const first = await client.createTask({ input: 'a table' }, { waitSeconds: 5 });
    expect(first.status).toBe('input-required');
    expect(textOfStatus(first)).toEqual({ kind: 'text', text: 'For how many people?' });
    expect(first.inputSchema).toEqual({ type: 'integer', minimum: 1, maximum: 20 });
    const second = await client.sendMessage(first.id, '4', { waitSeconds: 5 });
    expect(second.status).toBe('input-required');
    expect(textOfStatus(second)).toEqual({ kind: 'text', text: 'What time? (HH:MM)' });
    const third = await client.sendMessage(first.id, [{ kind: 'text', text: '19:30' }], {
      waitSeconds: 5,
    });
    expect(third).toMatchObject({
      id: first.id,
      contextId: first.contextId,
      status: 'completed',
      output: 'Booked a table for 4 at 19:30.',
    });
    expect(third.inputSchema).toBeUndefined();
    expect(third).not.toHaveProperty('inputRequest');
  });

  it('continues the waiting task of a contextId with createTask', async () => {
    const client = createA2AHttpClient({ baseUrl: booking.url });
    const contextId = `client-${Date.now()}`;
    const first = await client.createTask({ input: 'hi', contextId }, { waitSeconds: 5 });
    const second = await client.createTask({ input: '6', contextId }, { waitSeconds: 5 });
    expect(second.id).toBe(first.id);
    expect(textOfStatus(second)).toEqual({ kind: 'text', text: 'What time? (HH:MM)' });
  });

  it('waits and watches until a pause, without hanging there', async () => {
    const client = createA2AHttpClient({ baseUrl: booking.url });
    const created = await client.createTask({ input: 'hi' });
    expect((await client.waitForTask(created.id)).status).toBe('input-required');
    const seen: string[] = [];
    for await (const task of client.watchTask(created.id)) seen.push(task.status);
    expect(seen.at(-1)).toBe('input-required');
    await client.sendMessage(created.id, '2');
    const watched: string[] = [];
    for await (const task of client.watchTask(created.id)) watched.push(task.status);
    expect(watched.at(-1)).toBe('input-required');
    const paused = await client.getTask(created.id);
    expect(textOfStatus(paused)).toEqual({ kind: 'text', text: 'What time? (HH:MM)' });
    expect((await client.cancelTask(created.id)).status).toBe('canceled');
  });

  it('sends parts that reach the agent', async () => {
    const client = createA2AHttpClient({ baseUrl: assistant.url });
    const task = await client.createTask(
      {
        input: [
          { kind: 'text', text: 'describe the parts' },
          { kind: 'file', mediaType: 'application/pdf', bytes: 'JVBERi0=' },
        ],
      },
      { waitSeconds: 5 },
    );
    expect(task.output).toBe('text text/plain 18 bytes\nfile application/pdf 5 bytes');
  });

  it('is refused with 409 task_not_waiting for a finished task, and 404 for an unknown one', async () => {
    const client = createA2AHttpClient({ baseUrl: echo.url });
    const done = await client.createTask({ input: 'hi' }, { waitSeconds: 5 });
    const refused = await client.sendMessage(done.id, 'more').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RemoteHttpError);
    expect(refused).toMatchObject({ httpStatus: 409, remoteCode: 'task_not_waiting' });
    const unknown = await client.sendMessage('nope', 'hi').catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(RemoteTaskNotFoundError);
  });
});
