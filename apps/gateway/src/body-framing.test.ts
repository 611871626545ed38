import { listen } from '@agentport/http/node';
import { exchangeRaw, uploadUntilClosed } from '@agentport/http/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltinAgents } from './builtin-agents.ts';
import { createGateway } from './gateway.ts';

let port = 0;
const controller = new AbortController();
let stopped: Promise<void> = Promise.resolve();

beforeAll(async () => {
  const gateway = createGateway({
    agents: createBuiltinAgents(),
    defaultAgent: 'assistant',
    publicUrl: 'http://127.0.0.1',
  });
  stopped = listen(gateway.app, {
    signal: controller.signal,
    shutdownTimeoutMs: 200,
    handleNode: gateway.handleNode,
    onListen: (address) => {
      port = address.port;
    },
  });
  while (port === 0) await new Promise((resolve) => setTimeout(resolve, 5));
});

afterAll(async () => {
  controller.abort();
  await stopped;
});

const head = (method: string, path: string, framing: string) =>
  `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;

describe('gateway: requests with broken body framing', () => {
  // GETs the app answers at once, and POSTs of the Node fast path and the app.
  const routes = [
    ['GET', '/healthz'],
    ['GET', '/agents'],
    ['GET', '/.well-known/agent-card.json'],
    ['POST', '/agents/echo/invoke'],
    ['POST', '/a2a/echo/jsonrpc'],
    ['POST', '/tasks'],
    ['POST', '/compat/runs'],
  ] as const;
  const framings = [
    ['Content-Length: 2', '{}{"input":"x"}\r\n\r\n'],
    ['Transfer-Encoding: chunked', 'zz\r\n{}\r\n0\r\n\r\n'],
  ] as const;

  it('answers every one with a JSON 400 bad_request and closes the connection', async () => {
    for (let round = 0; round < 5; round += 1) {
      for (const [method, path] of routes) {
        for (const [framing, body] of framings) {
          const answer = await exchangeRaw(port, head(method, path, framing) + body);
          const where = `${method} ${path} with ${framing}: ${JSON.stringify(answer)}`;
          expect(answer, where).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
          expect(answer.match(/HTTP\/1\.1 /g), where).toHaveLength(1);
          expect(answer, where).toMatch(/\r\nConnection: close\r\n/i);
          expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), where).toMatchObject({
            error: { code: 'bad_request' },
          });
        }
      }
    }
  });
});

describe('gateway: a body declared over the limit', () => {
  it.each([
    '/agents/echo/invoke',
    '/agents/echo/stream',
    '/tasks',
    '/agents/echo/tasks',
    '/a2a/echo/jsonrpc',
    '/a2a/echo/rest/v1/message:send',
    '/compat/runs',
  ])(
    'POST %s is answered 413 with Connection: close, and the connection ends at once',
    async (path) => {
      const refused = await uploadUntilClosed(port, head('POST', path, 'Content-Length: 50000000'));
      expect(refused.head).toMatch(/^http\/1\.1 413 /);
      expect(refused.head).toMatch(/\r\nconnection: close(\r\n|$)/);
      // Not after reading the upload for a while (@hono/node-server drains one for 500 ms).
      expect(refused.closedMs - refused.answeredMs).toBeLessThan(250);
    },
  );
});
