import { createBookingAgent } from '@agentport/core/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange } from '../test-support/exchange.ts';
import { type ServedAgent, serveAgent } from '../test-support/servers.ts';

let booking: ServedAgent;

beforeAll(async () => {
  booking = await serveAgent(createBookingAgent());
});

afterAll(async () => {
  await booking?.close();
});

/** The SSE events' data of an exchange. */
function dataOf(body: unknown): Record<string, unknown>[] {
  return (body as { data: Record<string, unknown> }[]).map((event) => event.data);
}

describe('a v0.3 stream that ends at a pause', () => {
  it('marks the input-required status update final over v0.3 JSON-RPC', async () => {
    const answer = await exchange(booking.baseUrl, {
      path: '/jsonrpc',
      json: {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/stream',
        params: {
          message: {
            kind: 'message',
            messageId: 'm-1',
            role: 'user',
            parts: [{ kind: 'text', text: 'table' }],
          },
        },
      },
    });
    const results = dataOf(answer.body).map((data) => data.result as Record<string, unknown>);
    const last = results.at(-1) as { kind: string; final: boolean; status: { state: string } };
    expect([last.kind, last.status.state, last.final]).toEqual([
      'status-update',
      'input-required',
      true,
    ]);
    expect(results.slice(0, -1).every((result) => result.final !== true)).toBe(true);
  });

  it('marks it final over v0.3 HTTP+JSON', async () => {
    const answer = await exchange(booking.baseUrl, {
      path: '/rest/v1/message:stream',
      json: { message: { messageId: 'm-2', role: 'ROLE_USER', content: [{ text: 'table' }] } },
    });
    const last = dataOf(answer.body).at(-1) as {
      statusUpdate?: { final?: boolean; status?: { state?: string } };
    };
    expect(last.statusUpdate?.status?.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(last.statusUpdate?.final).toBe(true);
  });

  it('leaves v1.0 events as the SDK sends them (v1.0 has no final)', async () => {
    const answer = await exchange(booking.baseUrl, {
      path: '/jsonrpc',
      headers: { 'A2A-Version': '1.0' },
      json: {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'm-3', role: 'ROLE_USER', parts: [{ text: 'table' }] } },
      },
    });
    const last = dataOf(answer.body).at(-1)?.result as { statusUpdate?: Record<string, unknown> };
    expect(last.statusUpdate).not.toHaveProperty('final');
  });
});
