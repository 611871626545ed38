import { createEchoAgent, createTickerAgent } from '@agentport/core/agents';
import type { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createA2ASdkServer } from '../server.ts';

const config = {
  name: 'Agent',
  version: '1.0.0',
  description: 'An agent',
  url: 'http://localhost/a2a/agent',
};
const V03 = { 'content-type': 'application/json' };
const V1 = { 'A2A-Version': '1.0', 'content-type': 'application/json' };

/** Posts one JSON-RPC call and answers its parsed envelope. */
async function call(
  app: Hono,
  headers: Record<string, string>,
  method: string,
  params: object,
): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const response = await app.request('/jsonrpc', {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  expect(response.status).toBe(200);
  return response.json();
}

const legacyMessage = (text: string) => ({
  kind: 'message',
  messageId: crypto.randomUUID(),
  role: 'user',
  parts: [{ kind: 'text', text }],
});

const message = (text: string) => ({
  messageId: crypto.randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
});

describe('a v0.3 message/send', () => {
  const { app } = createA2ASdkServer({ agent: createTickerAgent(), card: config });
  const stateOf = async (configuration?: object) => {
    const params = { message: legacyMessage('2 every 30ms'), configuration };
    const answer = await call(app, V03, 'message/send', params);
    return (answer.result?.status as { state?: string } | undefined)?.state;
  };

  it('waits for the task when its configuration has no blocking, as without configuration', async () => {
    expect(await stateOf()).toBe('completed');
    expect(await stateOf({ acceptedOutputModes: ['text/plain'] })).toBe('completed');
    expect(await stateOf({})).toBe('completed');
    expect(await stateOf({ historyLength: 5 })).toBe('completed');
    expect(await stateOf({ blocking: null })).toBe('completed');
  });

  it('answers at once with blocking false, and waits with blocking true', async () => {
    expect(await stateOf({ blocking: false })).toMatch(/^(submitted|working)$/);
    expect(await stateOf({ blocking: true, acceptedOutputModes: [] })).toBe('completed');
  });
});

describe('historyLength over JSON-RPC', () => {
  const { app } = createA2ASdkServer({ agent: createEchoAgent(), card: config });
  const taskId = async () => {
    const answer = await call(app, V1, 'SendMessage', { message: message('remember me') });
    const { id } = (answer.result?.task ?? {}) as { id?: string };
    expect(id).toBeTypeOf('string');
    return id as string;
  };
  const invalid = (reason: string) => ({ error: { code: -32602, message: reason } });
  const cases: [unknown, string][] = [
    [-1, 'historyLength must be non-negative'],
    [1.5, 'historyLength must be a valid integer'],
    ['abc', 'historyLength must be a valid integer'],
  ];

  it('refuses a GetTask or tasks/get historyLength that is not a non-negative integer', async () => {
    const id = await taskId();
    for (const [historyLength, reason] of cases) {
      const v1 = await call(app, V1, 'GetTask', { id, historyLength });
      expect(v1, `GetTask ${historyLength}`).toMatchObject(invalid(reason));
      const v03 = await call(app, V03, 'tasks/get', { id, historyLength });
      expect(v03, `tasks/get ${historyLength}`).toMatchObject(invalid(reason));
    }
    // v0.3 is JSON Schema (an integer); v1.0 is ProtoJSON, where an int32 may come as a string.
    const v03String = await call(app, V03, 'tasks/get', { id, historyLength: '2' });
    expect(v03String).toMatchObject(invalid('historyLength must be a valid integer'));
    const v1String = await call(app, V1, 'GetTask', { id, historyLength: '0' });
    expect(v1String.result).toMatchObject({ id, status: {} });
    expect(v1String.result?.history ?? []).toEqual([]);
    const v03Zero = await call(app, V03, 'tasks/get', { id, historyLength: 0 });
    expect(v03Zero.result).toMatchObject({ id, kind: 'task' });
    expect(v03Zero.result?.history ?? []).toEqual([]);
  });

  it('refuses such a historyLength in a send configuration and in ListTasks, running nothing', async () => {
    await taskId();
    for (const [historyLength, reason] of cases) {
      const v1 = await call(app, V1, 'SendMessage', {
        message: message('never'),
        configuration: { historyLength },
      });
      expect(v1, `SendMessage ${historyLength}`).toMatchObject(invalid(reason));
      const v03 = await call(app, V03, 'message/send', {
        message: legacyMessage('never'),
        configuration: { historyLength },
      });
      expect(v03, `message/send ${historyLength}`).toMatchObject(invalid(reason));
      const list = await call(app, V1, 'ListTasks', { historyLength });
      expect(list, `ListTasks ${historyLength}`).toMatchObject(invalid(reason));
    }
    const listed = await call(app, V1, 'ListTasks', { historyLength: 1, pageSize: 100 });
    const outputs = JSON.stringify(listed.result?.tasks);
    expect(outputs).toContain('remember me');
    expect(outputs).not.toContain('never');
  });
});
