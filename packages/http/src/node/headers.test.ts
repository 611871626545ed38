import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { type Context, Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestHeader } from '../request-header.ts';
import { setResponseHeader } from '../response-header.ts';
import { streamSSE } from '../sse/stream-sse.ts';
import { type ListenAddress, listen } from './listen.ts';

const app = new Hono()
  .get('/echo', (context) => {
    setResponseHeader(context, 'x-echo', requestHeader(context, 'x-probe') ?? 'none');
    // A response not built through the context: on Node the header still goes out with it.
    return new Response('plain');
  })
  .get('/json', (context) => {
    setResponseHeader(context, 'location', '/json/1');
    return context.json({ ok: true }, 201);
  })
  .get('/kept', (context) => {
    setResponseHeader(context, 'x-kept', 'first');
    setResponseHeader(context, 'X-Kept', 'second');
    const outgoing = nodeResponse(context);
    outgoing.on('finish', () => {
      headerTableAfterHead = outgoing.getHeaderNames();
    });
    return context.json({ ok: true });
  })
  .get('/own-wins', (context) => {
    setResponseHeader(context, 'x-who', 'helper');
    nodeResponse(context).setHeader('X-Who', 'handler');
    return context.text('ok');
  })
  .get('/raw-head', (context) => {
    setResponseHeader(context, 'x-added', 'yes');
    const outgoing = nodeResponse(context);
    if (context.req.query('form') === 'array') outgoing.writeHead(202, 'Taken', ['x-own', '1']);
    else outgoing.writeHead(202, 'Taken', { 'X-Added': 'own' });
    outgoing.end();
    return RESPONSE_ALREADY_SENT;
  })
  .get('/stream', (context) => {
    setResponseHeader(context, 'x-request-id', 'r-1');
    return streamSSE(context, (writer) => {
      writer.write({ data: 'hello' });
    });
  });

let headerTableAfterHead: string[] | undefined;

function nodeResponse(context: Context): ServerResponse {
  return (context.env as { outgoing: ServerResponse }).outgoing;
}

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

  it('on Node, sends the header with the head without keeping a header table (last value wins)', async () => {
    const response = await fetch(`${url}/kept`);
    expect(response.headers.get('x-kept')).toBe('second');
    await response.json();
    expect(headerTableAfterHead).toEqual([]);
  });

  it('on Node, lets a header the handler set on the response under the same name win', async () => {
    const response = await fetch(`${url}/own-wins`);
    expect(response.headers.get('x-who')).toBe('handler');
  });

  it('on Node, joins a head written by hand, with a reason phrase and an object or array', async () => {
    const fromObject = await fetch(`${url}/raw-head`);
    expect([fromObject.status, fromObject.statusText]).toEqual([202, 'Taken']);
    expect(fromObject.headers.get('x-added')).toBe('own');
    const fromArray = await fetch(`${url}/raw-head?form=array`);
    expect(fromArray.headers.get('x-own')).toBe('1');
    expect(fromArray.headers.get('x-added')).toBe('yes');
  });

  it('on Node, reaches the head of an SSE stream', async () => {
    const response = await fetch(`${url}/stream`);
    expect(response.headers.get('x-request-id')).toBe('r-1');
    expect(await response.text()).toBe('data: hello\n\n');
  });
});
