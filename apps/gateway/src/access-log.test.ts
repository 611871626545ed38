import { Hono } from 'hono';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { accessLog } from './access-log.ts';
import { apiKeyAuth } from './auth.ts';
import { requestIds } from './request-id.ts';
import { collectLines } from './testing/log-lines.ts';

describe('accessLog', () => {
  it('logs one structured line per request with its id, and never a key', async () => {
    const { lines, destination } = collectLines();
    const key = 'secret-key-0123456789';
    const app = new Hono();
    app.use(requestIds());
    app.use(accessLog(pino({ base: undefined }, destination)));
    app.use(apiKeyAuth([key]));
    app.get('/things', (context) => context.text('ok'));
    await app.request('/things', { headers: { 'x-request-id': 'req-1', 'x-api-key': key } });
    await app.request('/things', { headers: { authorization: 'Bearer wrong-key-987654321' } });
    const entries = lines.map((line) => JSON.parse(line));
    expect(entries).toMatchObject([
      { requestId: 'req-1', method: 'GET', path: '/things', status: 200, msg: 'request' },
      { method: 'GET', path: '/things', status: 401 },
    ]);
    expect(entries[0].durationMs).toBeTypeOf('number');
    expect(lines.join('')).not.toContain(key);
    expect(lines.join('')).not.toContain('wrong-key');
  });
});
