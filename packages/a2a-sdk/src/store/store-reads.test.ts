import { createMemoryTaskStore, createTaskRunner, type TaskStore } from '@agentport/core';
import { createEchoAgent } from '@agentport/core/agents';
import { describe, expect, it } from 'vitest';
import { createA2ASdkServer } from '../server.ts';

const card = {
  name: 'Echo',
  version: '1.0.0',
  description: 'Echoes',
  url: 'http://localhost/a2a/echo',
};
const V1 = { 'A2A-Version': '1.0', 'content-type': 'application/json' };

/** A store counting the reads of a task (a round trip each on a database). */
function countedStore(): { store: TaskStore; reads: () => number } {
  const store = createMemoryTaskStore();
  let reads = 0;
  return {
    store: {
      ...store,
      get: (id) => {
        reads += 1;
        return store.get(id);
      },
    },
    reads: () => reads,
  };
}

describe('the reads of a SendMessage', () => {
  it('reads the task it runs once, however many times the SDK saves its copy', async () => {
    const { store, reads } = countedStore();
    const agent = createEchoAgent();
    const runner = createTaskRunner({ agent, store });
    const { app } = createA2ASdkServer({ agent, card, runner });
    const response = await app.request('/jsonrpc', {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
      }),
    });
    const answer = await response.json();
    expect(answer.result.task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    // The follow starts from the task the runner created; of the saves, the first reads.
    expect(reads()).toBe(1);
  });
});
