import type { IncomingMessage, ServerResponse } from 'node:http';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { jsonErrorHandler } from '../error-response.ts';
import { limitBody, parseJsonBody } from '../json-body.ts';
import { exchangeRaw, uploadUntilClosed } from '../testing/raw-http.ts';
import { type ListenAddress, listen } from './listen.ts';
import { readBody, writeAnswer } from './node-answer.ts';

const MAX_BODY_BYTES = 100;

const app = new Hono()
  .onError(jsonErrorHandler)
  // Answered in the turn the request arrives in, before its body is parsed.
  .get('/sync', (context) => context.json({ ok: true }))
  .get('/async', async (context) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return context.json({ ok: true });
  })
  .post('/echo', limitBody(MAX_BODY_BYTES), async (context) =>
    context.json(await parseJsonBody(context, z.object({}).loose())),
  );

/** The Node fast path of `/fast`: a GET answered at once, a POST once its body is read. */
function handleNode(request: IncomingMessage, response: ServerResponse): boolean {
  if (request.url !== '/fast') return false;
  const answer = () =>
    writeAnswer(response, 200, { 'content-type': 'application/json' }, '{"ok":true}', undefined);
  if (request.method === 'GET') answer();
  else readBody(request, answer);
  return true;
}

const stops: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

async function start(): Promise<number> {
  const controller = new AbortController();
  const { port } = await new Promise<ListenAddress>((onListen) => {
    const stopped = listen(app, { signal: controller.signal, onListen, handleNode });
    stops.push(async () => {
      controller.abort();
      await stopped;
    });
  });
  return port;
}

const head = (method: string, path: string, framing: string) =>
  `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;

/** Requests whose body framing Node's parser refuses only after the request is dispatched. */
const brokenFramings = {
  'a Content-Length shorter than the body': (method: string, path: string) =>
    `${head(method, path, 'Content-Length: 2')}{}{"input":"x"}\r\n\r\n`,
  'a chunk size that is not hex': (method: string, path: string) =>
    `${head(method, path, 'Transfer-Encoding: chunked')}zz\r\n{}\r\n0\r\n\r\n`,
  'a chunk longer than its size': (method: string, path: string) =>
    `${head(method, path, 'Transfer-Encoding: chunked')}2\r\n{}xx\r\n0\r\n\r\n`,
};

describe('listen: requests with broken body framing', () => {
  const routes = [
    ['GET', '/sync'],
    ['GET', '/async'],
    ['POST', '/echo'],
    ['GET', '/fast'],
    ['POST', '/fast'],
  ] as const;

  it.each(Object.entries(brokenFramings))(
    'answers one with %s a JSON 400 bad_request and closes, GET and POST, on the app and the Node fast path',
    async (_name, request) => {
      const port = await start();
      // The answer of the request as dispatched and the parser's error meet in one turn: every
      // time, for an answer given at once, as timing falls for one given later.
      for (let round = 0; round < 15; round += 1) {
        for (const [method, path] of routes) {
          const answer = await exchangeRaw(port, request(method, path));
          const where = `${method} ${path}, round ${round}: ${JSON.stringify(answer)}`;
          expect(answer, where).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
          expect(answer.match(/HTTP\/1\.1 /g), where).toHaveLength(1);
          expect(answer, where).toMatch(/\r\nConnection: close\r\n/i);
          expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), where).toEqual({
            error: { code: 'bad_request', message: 'Malformed HTTP request' },
          });
        }
      }
    },
  );
});

describe('listen: a body over the limit', () => {
  it.each([
    ['declared by Content-Length', 'Content-Length: 50000000'],
    ['sent in chunks', 'Transfer-Encoding: chunked'],
  ])(
    'is answered 413 with Connection: close, %s, and the connection ends at once, the upload unread',
    async (_name, framing) => {
      const port = await start();
      const refused = await uploadUntilClosed(port, head('POST', '/echo', framing));
      expect(refused.head).toMatch(/^http\/1\.1 413 /);
      expect(refused.head).toMatch(/\r\nconnection: close(\r\n|$)/);
      expect(refused.head).not.toContain('keep-alive');
      // Not after a drain of the upload (@hono/node-server reads one for 500 ms).
      expect(refused.closedMs - refused.answeredMs).toBeLessThan(250);
    },
  );
});
