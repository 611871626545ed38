import { defineAgent } from '@agentport/core';
import { createFloodAgents, timersDuring } from '@agentport/core/testing';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createGateway } from './gateway.ts';
import { collectLines } from './testing/log-lines.ts';

// One agent yielding events back to back must not hold the event loop for its whole run, on any
// surface: a timer set as it starts fires while it runs, every few milliseconds.

const EVENTS = 100_000;
const base = 'http://gateway.test';
const json = { 'content-type': 'application/json' };

const { flood, handFlood } = createFloodAgents(EVENTS);

// With a logger, as `agentport serve` builds it: every agent is wrapped to log its failures.
const { app } = createGateway({
  agents: [flood, handFlood],
  defaultAgent: 'flood',
  publicUrl: base,
  logger: pino({ level: 'error' }, collectLines().destination),
});

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return Promise.resolve(
    app.request(`${base}${path}`, {
      method: 'POST',
      headers: { ...json, ...headers },
      body: JSON.stringify(body),
    }),
  );
}

function sdkCall(agent: string, method: string) {
  const message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'x' }] };
  return post(
    `/a2a/${agent}/jsonrpc`,
    { jsonrpc: '2.0', id: 1, method, params: { message } },
    { 'A2A-Version': '1.0' },
  );
}

const surfaces: Array<[string, (agent: string) => Promise<Response>]> = [
  ['REST invoke', (agent) => post(`/agents/${agent}/invoke`, { input: 'x' })],
  ['REST stream', (agent) => post(`/agents/${agent}/stream`, { input: 'x' })],
  ['hand-rolled A2A task', (agent) => post(`/agents/${agent}/tasks?wait=30`, { input: 'x' })],
  ['SDK SendMessage', (agent) => sdkCall(agent, 'SendMessage')],
  ['SDK SendStreamingMessage', (agent) => sdkCall(agent, 'SendStreamingMessage')],
  ['compat run', (agent) => post('/compat/runs', { agent_name: agent, input: 'x' })],
  [
    'compat stream',
    (agent) => post('/compat/runs', { agent_name: agent, input: 'x', stream: true }),
  ],
];

describe('an agent yielding 100,000 events back to back', () => {
  const cases = surfaces.flatMap(([surface, call]) =>
    [flood, handFlood].map((agent) => [surface, agent.name, call] as const),
  );

  it.each(cases)('gives the event loop turns on the %s (%s)', async (_, agent, call) => {
    let text = '';
    const { fired, longest, elapsed } = await timersDuring(async () => {
      const response = await call(agent);
      expect(response.ok).toBe(true);
      text = await response.text();
    });
    // The whole answer came, and timers fired all along its run: unpaced, none fires until it
    // ends (its one wait is the whole run). The longest wait is bounded by 50 ms or, on a loaded
    // machine (CI, two test files at once) that stretches every gap and a collection's pause
    // alike, by three quarters of the run's own time.
    expect(text).toContain('x'.repeat(1_000));
    expect(fired).toBeGreaterThan(1);
    expect(longest).toBeLessThan(Math.max(50, elapsed * 0.75));
  });
});

describe('an ordinary stream', () => {
  it('streams the same events as before', async () => {
    const echo = defineAgent({
      name: 'echo',
      async *run(input) {
        for (const word of input.split(' ')) yield { type: 'text-delta', delta: word };
      },
    });
    const gateway = createGateway({ agents: [echo], defaultAgent: 'echo', publicUrl: base });
    const response = await gateway.app.request(`${base}/agents/echo/stream`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input: 'a b' }),
    });
    expect(await response.text()).toBe(
      // Ids are the run's task log numbers: 1 and 2 (its creation and start) are not sent.
      'event: text-delta\nid: 3\ndata: {"delta":"a"}\n\n' +
        'event: text-delta\nid: 4\ndata: {"delta":"b"}\n\n' +
        'event: done\nid: 5\ndata: {"output":"ab"}\n\n',
    );
  });
});
