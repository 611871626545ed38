import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ListenAddress, listen } from './listen.ts';
import { requestHeader } from './request-header.ts';
import { setResponseHeader } from './response-header.ts';

const app = new Hono()
  .get('/echo', (context) => {
    setResponseHeader(context, 'x-echo', requestHeader(context, 'x-probe') ?? 'none');
    // A response not built through the context: on Node the header still goes out with it.
    return new Response('plain');
  })
  .get('/json', (context) => {
    setResponseHeader(context, 'location', '/json/1');
    return context.json({ ok: true }, 201);
  });

const controller = new AbortController();
let url = '';
let stopped: Promise<void>;

beforeAll(async () => {
  const address = new Promise<ListenAddress>((resolve) => {
    stopped = listen(app, { port: 0, signal: controller.signal, onListen: resolve });
  });
  url = (await address).url;
});

afterAll(async () => {
  controller.abort();
  await stopped;
});

describe('requestHeader and setResponseHeader', () => {
  it('on Node, read the parsed request headers and write onto the Node response', async () => {
    const response = await fetch(`${url}/echo`, { headers: { 'X-Probe': 'a, b' } });
    expect(response.headers.get('x-echo')).toBe('a, b');
    expect(await response.text()).toBe('plain');
    const created = await fetch(`${url}/json`);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/json/1');
    expect(await created.json()).toEqual({ ok: true });
  });

  it('elsewhere, read and write through the context', async () => {
    const response = await app.request('/json');
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe('/json/1');
    const plain = await app.request('/echo', { headers: { 'X-Probe': 'web' } });
    // Without a Node response, only responses built through the context carry the header.
    expect(plain.headers.get('x-echo')).toBeNull();
  });
});
