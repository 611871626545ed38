import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { incomingHeaders } from './request-header.ts';
import { serve, type TestServer } from './testing/serve.ts';

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const app = new Hono().get('/', (context) => {
  const headers = incomingHeaders(context);
  return context.json(headers === undefined ? null : { probe: headers['x-probe'] });
});

describe('incomingHeaders', () => {
  it("gives Node's parsed headers on @hono/node-server, names in lower case", async () => {
    server = await serve(app);
    const response = await fetch(server.url, { headers: { 'X-Probe': 'yes' } });
    expect(await response.json()).toEqual({ probe: 'yes' });
  });

  it('is undefined off @hono/node-server', async () => {
    const response = await app.request('/', { headers: { 'x-probe': 'yes' } });
    expect(await response.json()).toBeNull();
  });
});
