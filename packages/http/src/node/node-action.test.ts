import { InvalidInputError } from '@agentport/core';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { honoAction, type RouteAction } from '../route-action.ts';
import { parseSSE, serve, type TestServer } from '../testing/index.ts';
import { listen } from './listen.ts';
import { nodeAction } from './node-action.ts';
import { hasPlainJsonBody } from './node-answer.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Echoes `{ text }` back as JSON, or as two SSE events with `?stream`; refuses an empty text. */
const echo: RouteAction = {
  maxBodyBytes: 64,
  run(call) {
    const { text } = JSON.parse(new TextDecoder().decode(call.body)) as { text: string };
    if (text === '') throw new InvalidInputError('text must not be empty', { field: 'text' });
    if (call.search === 'stream') {
      return {
        stream(writer) {
          writer.write({ event: 'echo', data: text, id: 1 });
          writer.write({ event: 'done', data: call.path, id: 2 });
          writer.close();
        },
      };
    }
    return {
      status: 201,
      json: JSON.stringify({ text, path: call.path }),
      headers: { 'x-echo': '1' },
    };
  },
};

/** The same action served through Hono alone, and through the Node fast path first. */
async function startBoth(taken: boolean[]): Promise<{ hono: string; node: string }> {
  const app = new Hono().post('/echo', honoAction(echo));
  const onNode = nodeAction(echo);
  const viaHono = await serve(app);
  const viaNode = await serve((options) =>
    listen(app, {
      ...options,
      handleNode(request, response) {
        const take = hasPlainJsonBody(request, echo.maxBodyBytes);
        taken.push(take);
        if (take) onNode(request, response, { 'x-request-id': 'r1' });
        return take;
      },
    }),
  );
  servers.push(viaHono, viaNode);
  return { hono: viaHono.url, node: viaNode.url };
}

async function answerOf(url: string, search: string, body: string) {
  const response = await fetch(`${url}/echo${search}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    echo: response.headers.get('x-echo'),
    text: await response.text(),
  };
}

describe('an action declared once', () => {
  it.each([
    ['a JSON answer', '', '{"text":"hi"}'],
    ['an SSE answer', '?stream', '{"text":"hi"}'],
    ['an error the action throws', '', '{"text":""}'],
  ])('answers %s the same on the Node fast path as on Hono', async (_name, search, body) => {
    const taken: boolean[] = [];
    const { hono, node } = await startBoth(taken);
    const [viaHono, viaNode] = await Promise.all([
      answerOf(hono, search, body),
      answerOf(node, search, body),
    ]);
    expect(viaNode).toEqual(viaHono);
    expect(taken).toEqual([true]);
  });

  it('gives the stream and the path to both', async () => {
    const { node } = await startBoth([]);
    const answer = await answerOf(node, '?stream', '{"text":"hi"}');
    expect(parseSSE(answer.text).events.map((event) => event.data)).toEqual(['hi', '/echo']);
    const json = await answerOf(node, '', '{"text":"hi"}');
    expect(JSON.parse(json.text)).toEqual({ text: 'hi', path: '/echo' });
    expect(json.status).toBe(201);
  });

  it('refuses a body over its limit on Hono with 413 before the action runs', async () => {
    const taken: boolean[] = [];
    const { node } = await startBoth(taken);
    const answer = await answerOf(node, '', JSON.stringify({ text: 'x'.repeat(100) }));
    expect(answer.status).toBe(413);
    expect(taken).toEqual([false]);
  });
});
