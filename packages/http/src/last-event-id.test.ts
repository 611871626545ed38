import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { jsonErrorHandler } from './error-response.ts';
import { lastEventIdOf, parseLastEventId } from './last-event-id.ts';

const app = new Hono();
app.onError(jsonErrorHandler);
app.get('/events', (context) => context.json({ after: lastEventIdOf(context) ?? null }));

describe('Last-Event-ID', () => {
  it('reads the header first, then the lastEventId query parameter', async () => {
    const byHeader = await app.request('/events?lastEventId=3', {
      headers: { 'Last-Event-ID': '7' },
    });
    expect(await byHeader.json()).toEqual({ after: 7 });
    expect(await (await app.request('/events?lastEventId=3')).json()).toEqual({ after: 3 });
    expect(await (await app.request('/events')).json()).toEqual({ after: null });
  });

  it.each(['abc', '-1', '1.5', '01', '1e3', '', '99999999999999999'])(
    "answers 400 invalid_input naming the field for '%s'",
    async (value) => {
      const response = await app.request('/events', { headers: { 'Last-Event-ID': value } });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('invalid_input');
      expect(body.error.message).toContain('Last-Event-ID');
    },
  );

  it('takes surrounding spaces and 0', () => {
    expect(parseLastEventId(' 12 ')).toBe(12);
    expect(parseLastEventId('0')).toBe(0);
    expect(() => parseLastEventId('x', 'lastEventId')).toThrow(/lastEventId/);
  });
});
