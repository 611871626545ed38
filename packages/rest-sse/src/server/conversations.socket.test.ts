import { createAssistantAgent, createBookingAgent } from '@agentport/core/agents';
import { dropAndRejoin, eventsOf, readSSE, servedPerTest } from '@agentport/http/testing';
import { describe, expect, it } from 'vitest';
import { createRestServer } from './rest-server.ts';

const start = servedPerTest();
const json = { 'content-type': 'application/json' };

function serveAgents(): Promise<string> {
  return start(
    createRestServer()
      .register('booking', createBookingAgent())
      .register('assistant', createAssistantAgent()),
  );
}

function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: json, body: JSON.stringify(body) });
}

describe('conversations over a real socket (the Node fast path)', () => {
  it('completes the booking conversation over invoke, input-required twice, then completed', async () => {
    const url = await serveAgents();
    const answers: unknown[] = [];
    let taskId: string | undefined;
    for (const input of ['A table', '6', '21:45']) {
      const response = await post(`${url}/booking/invoke`, { input, contextId: 'sock-1' });
      const answer = (await response.json()) as { taskId?: string };
      taskId ??= answer.taskId;
      answers.push(answer);
    }
    expect(answers).toEqual([
      { result: 'For how many people?', contextId: 'sock-1', status: 'input-required', taskId },
      { result: 'What time? (HH:MM)', contextId: 'sock-1', status: 'input-required', taskId },
      { result: 'Booked a table for 6 at 21:45.', contextId: 'sock-1', status: 'completed' },
    ]);
  });

  it('completes the booking conversation over stream, each stream ending with input-required but the last', async () => {
    const url = await serveAgents();
    const ends: (string | undefined)[] = [];
    let taskId: string | undefined;
    for (const input of ['A table', '2', '07:00']) {
      const response = await post(`${url}/booking/stream`, {
        input,
        ...(taskId ? { taskId } : {}),
      });
      const events = eventsOf(await readSSE(response));
      const last = events.at(-1);
      taskId ??= (last?.data as { taskId?: string } | undefined)?.taskId;
      const contextId = response.headers.get('context-id');
      if (last?.event === 'input-required') expect(last.data).toMatchObject({ contextId });
      ends.push(last?.event);
      if (last?.event === 'done')
        expect(last.data).toEqual({ output: 'Booked a table for 2 at 07:00.' });
    }
    expect(ends).toEqual(['input-required', 'input-required', 'done']);
  });

  it('rejoins a stream that answered a paused task at its Content-Location, after the last event read', async () => {
    const url = await serveAgents();
    const asked = eventsOf(await readSSE(await post(`${url}/booking/stream`, { input: 'Hi' })));
    const { taskId } = (asked.at(-1)?.data ?? {}) as { taskId: string };
    await readSSE(await post(`${url}/booking/stream`, { input: '2', taskId }));
    const answered = await post(`${url}/booking/stream`, { input: '09:00', taskId });
    expect(answered.headers.get('content-location')).toBe(`/booking/tasks/${taskId}/stream`);
    const { before, status, after } = await dropAndRejoin(url, answered, 1);
    expect(before.map((event) => event.event)).toEqual(['text-delta']);
    expect(status).toBe(200);
    expect(after.map((event) => [event.event, event.data])).toEqual([
      ['done', JSON.stringify({ output: 'Booked a table for 2 at 09:00.' })],
    ]);
    expect(Number(after[0]?.id)).toBe(Number(before[0]?.id) + 1);
  });

  it('recalls within a contextId and answers the refusals with the JSON error body', async () => {
    const url = await serveAgents();
    await post(`${url}/assistant/invoke`, { input: 'remember this', contextId: 'sock-2' });
    const recalled = await post(`${url}/assistant/invoke`, {
      input: 'what did I say?',
      contextId: 'sock-2',
    });
    expect(((await recalled.json()) as { result: string }).result).toBe('remember this');
    const refused = await Promise.all([
      post(`${url}/booking/invoke`, { input: 'x', contextId: 'sock-2' }),
      post(`${url}/booking/stream`, { input: 'x', taskId: 'unknown' }),
      post(`${url}/assistant/invoke`, { input: [{ kind: 'file', mediaType: 'a/b', bytes: '!' }] }),
    ]);
    const codes = await Promise.all(
      refused.map(async (response) => [
        response.status,
        ((await response.json()) as { error: { code: string } }).error.code,
      ]),
    );
    expect(codes).toEqual([
      [404, 'context_not_found'],
      [404, 'task_not_found'],
      [400, 'invalid_input'],
    ]);
  });
});
