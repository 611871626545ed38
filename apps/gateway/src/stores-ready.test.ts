import { createEchoAgent } from '@agentport/core/agents';
import { describe, expect, it } from 'vitest';
import { createGateway } from './gateway.ts';

describe('readiness of the stores', () => {
  it('answers /readyz 503 store_unavailable while the stores do not answer, 200 once they do', async () => {
    let up = false;
    const gateway = createGateway({
      agents: [createEchoAgent()],
      defaultAgent: 'echo',
      publicUrl: 'http://127.0.0.1:8080',
      storesReady: async () => up,
    });
    const down = await gateway.app.request('/readyz');
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ error: { code: 'store_unavailable' } });
    expect((await gateway.app.request('/healthz')).status).toBe(200);
    up = true;
    const ready = await gateway.app.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
    await gateway.shutdown();
  });
});
