import { defineAgent } from '@agentport/core';
import { createAssistantAgent, createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';
import { describe, expect, it } from 'vitest';
import { createRunner } from '../runner.ts';
import { createCompatApp } from './compat-app.ts';

const failing = defineAgent({
  name: 'failing',
  async *run() {
    yield { type: 'text-delta', delta: 'partial' };
    throw new Error('secret stack detail');
  },
});

const app = createCompatApp({
  runner: createRunner({ agents: [createAssistantAgent(), failing] }),
  maxBodyBytes: 1024,
});

function postRun(body: unknown, headers: Record<string, string> = {}) {
  return app.request('/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function readEvents(response: Response): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const stream = response.body
    ?.pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream());
  if (stream === undefined) throw new Error('no body');
  const reader = stream.getReader();
  for (let step = await reader.read(); !step.done; step = await reader.read()) {
    events.push(step.value);
  }
  return events;
}

describe('GET /agents', () => {
  it('answers every AgentDef sorted by name', async () => {
    const response = await app.request('/agents');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as { name: string }[];
    expect(body.map((definition) => definition.name)).toEqual(['assistant', 'echo', 'failing']);
    expect(body[0]).toMatchObject({
      name: 'assistant',
      handoffs: [{ name: 'echo', tool_name: 'transfer_to_echo' }],
    });
  });

  it('answers 405 with Allow for another method', async () => {
    const response = await app.request('/agents', { method: 'DELETE' });
    expect(response.status).toBe(405);
    // HEAD is answered too (as GET without a body), so Allow names it.
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect((await app.request('/agents', { method: 'HEAD' })).status).toBe(200);
    expect(await response.json()).toEqual({
      error: { code: 'method_not_allowed', message: 'Method DELETE not allowed; use GET, HEAD' },
    });
  });
});

describe('GET /agents/{name}', () => {
  it('answers one AgentDef', async () => {
    const response = await app.request('/agents/echo');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      name: 'echo',
      instructions: 'Repeat the input exactly.',
      model: 'agentport/echo',
    });
  });

  it('answers 404 naming an unknown agent', async () => {
    const response = await app.request('/agents/nobody');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { code: 'agent_not_found', message: "Agent 'nobody' not found" },
    });
  });

  it('answers 405 for a POST', async () => {
    const response = await app.request('/agents/echo', { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('POST /runs', () => {
  it('answers a RunResponse with the tool calls', async () => {
    const response = await postRun({ agent_name: 'assistant', input: 'what is 2 + 3' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      output: '2 + 3 = 5',
      agent: 'assistant',
      tool_calls: [
        {
          name: 'calculator',
          input: '{"expression":"2 + 3"}',
          output: '{"expression":"2 + 3","result":5}',
        },
      ],
      conversation_id: expect.any(String),
    });
  });

  it('reports the handoff target as the agent', async () => {
    const response = await postRun({ agent_name: 'assistant', input: 'repeat over HTTP' });
    expect(await response.json()).toEqual({
      output: 'over HTTP',
      agent: 'echo',
      conversation_id: expect.any(String),
    });
  });

  it("streams one SSE event per agent event, numbered by its task's log from 4, ending with done", async () => {
    const response = await postRun({
      agent_name: 'assistant',
      input: 'what is 2 * 4',
      stream: true,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readEvents(response);
    expect(events.map((event) => [event.id, event.event])).toEqual([
      ['4', 'tool-call'],
      ['5', 'tool-result'],
      ['6', 'text-delta'],
      ['7', 'done'],
    ]);
    expect(JSON.parse(events[0]?.data ?? '')).toMatchObject({
      name: 'calculator',
      input: { expression: '2 * 4' },
    });
    expect(JSON.parse(events[3]?.data ?? '')).toEqual({ output: '2 * 4 = 8' });
  });

  it('streams a failure as a final error event without leaking details', async () => {
    const response = await postRun({ agent_name: 'failing', input: 'x', stream: true });
    const events = await readEvents(response);
    expect(events.map((event) => event.event)).toEqual(['text-delta', 'error']);
    expect(events.map((event) => event.id)).toEqual(['4', '5']);
    expect(JSON.parse(events[1]?.data ?? '')).toEqual({
      code: 'agent_failure',
      message: "Agent 'failing' failed",
    });
  });

  it('answers 500 with the shared error body when the agent fails', async () => {
    const response = await postRun({ agent_name: 'failing', input: 'x' });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      error: { code: 'agent_failure', message: "Agent 'failing' failed" },
    });
    expect(text).not.toContain('secret');
  });

  it.each([true, false])('answers 404 for an unknown agent (stream: %s)', async (stream) => {
    const response = await postRun({ agent_name: 'ghost', input: 'x', stream });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      error: { code: 'agent_not_found', message: "Agent 'ghost' not found" },
    });
  });

  it.each([
    [{ input: 'x' }, 'agent_name: is required'],
    [{ agent_name: 'echo' }, 'input: is required'],
    [{ agent_name: 'echo', input: 3 }, 'input: must be a string or a list of input items'],
    [{ agent_name: '', input: 'x' }, 'agent_name: must not be empty'],
    // As on the REST surface: an empty input is refused.
    [{ agent_name: 'echo', input: '' }, 'input: must not be empty'],
    [{ agent_name: 'echo', input: 'x', stream: 'yes' }, 'stream: must be a boolean'],
    [[1, 2], 'body: must be a JSON object'],
  ])('answers 400 invalid_input for %j', async (body, message) => {
    const response = await postRun(body);
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain(message);
  });

  it('answers 400 invalid_json for a body that is not JSON', async () => {
    const response = await postRun('{"agent_name":');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'invalid_json',
    );
  });

  it('answers 415 for a body that is not declared JSON', async () => {
    const response = await postRun('agent_name=echo', { 'content-type': 'text/plain' });
    expect(response.status).toBe(415);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'unsupported_media_type',
    );
  });

  it('answers 413 for a body over the limit', async () => {
    const response = await postRun({ agent_name: 'echo', input: 'x'.repeat(2048) });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'payload_too_large',
    );
  });

  it('answers 405 with Allow for a GET', async () => {
    const response = await app.request('/runs');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('routing', () => {
  it('answers 404 in the shared error shape for an unknown route', async () => {
    const response = await app.request('/nope');
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('works mounted under /compat', async () => {
    const { Hono } = await import('hono');
    const gateway = new Hono().route(
      '/compat',
      createCompatApp({ runner: createRunner({ agents: [createEchoAgent()] }) }),
    );
    const listed = await gateway.request('/compat/agents');
    expect(((await listed.json()) as { name: string }[]).map((agent) => agent.name)).toEqual([
      'echo',
    ]);
    const missing = await gateway.request('/compat/agents/ghost');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: { code: 'agent_not_found', message: "Agent 'ghost' not found" },
    });
  });
});

describe('shutdown', () => {
  it('ends an open run stream with a final shutting_down event when the shutdown signal aborts', async () => {
    const shutdown = new AbortController();
    const closing = createCompatApp({
      runner: createRunner({ agents: [createTickerAgent()] }),
      shutdownSignal: shutdown.signal,
    });
    const response = await closing.request('/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_name: 'ticker', input: '100 every 20ms', stream: true }),
    });
    setTimeout(() => shutdown.abort(), 60);
    const events = await readEvents(response);
    expect(events.at(-1)?.event).toBe('error');
    expect(JSON.parse(events.at(-1)?.data ?? '')).toEqual({
      code: 'shutting_down',
      message: 'The server is shutting down',
    });
    expect(events.length).toBeLessThan(20);
    expect(events.map((event) => event.id)).toEqual(events.map((_, index) => String(index + 4)));
  });
});
