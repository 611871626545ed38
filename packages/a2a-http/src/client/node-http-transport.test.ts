import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CancellationError } from '@agentport/core';
import { describe, expect, it } from 'vitest';
import { MalformedResponseError } from '../errors/malformed-response-error.ts';
import { RemoteHttpError } from '../errors/remote-http-error.ts';
import { RemoteUnreachableError } from '../errors/remote-unreachable-error.ts';
import { serveNodeForFile } from '../testing/serve.ts';
import { createA2AHttpClient } from './create-a2a-http-client.ts';

const task = {
  id: 't1',
  agentName: 'stub',
  status: 'completed',
  input: 'x',
  output: 'héllo wörld',
  metadata: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const taskJson = JSON.stringify({ task });

let connections = 0;
// A raw server, to misbehave where a Hono app cannot: per path, see the handler below.
const server = http.createServer((request, response) => {
  const socket = request.socket as typeof request.socket & { served?: number };
  socket.served = (socket.served ?? 0) + 1;
  const path = request.url ?? '';
  if (path.startsWith('/reset-reused/') && socket.served > 1) {
    // The server closed a kept-alive connection just as the client reused it.
    socket.destroy();
    return;
  }
  if (path.startsWith('/cut/')) {
    // Headers promise more than arrives: the body ends early.
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    response.write(taskJson.slice(0, 20), () => socket.destroy());
    return;
  }
  if (path.startsWith('/huge/')) {
    // An answer past the client's bound, sent in 1 MiB chunks until the client hangs up.
    response.writeHead(200, { 'content-type': 'application/json' });
    const chunk = 'x'.repeat(1024 * 1024);
    const more = () => {
      while (!response.destroyed && response.write(chunk));
      if (!response.destroyed) response.once('drain', more);
    };
    response.on('close', () => response.removeAllListeners('drain'));
    more();
    return;
  }
  if (path.startsWith('/moved/')) {
    response.writeHead(307, { location: path.replace('/moved/', '/ok/') });
    response.end();
    return;
  }
  if (path.startsWith('/stalled-events/')) {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(
      `event: task\ndata: ${JSON.stringify({ task: { ...task, status: 'working' } })}\n\n`,
    );
    return; // never ends: only the caller's abort stops it
  }
  request.resume();
  request.on('end', () => {
    response.writeHead(request.method === 'POST' ? 201 : 200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(taskJson),
    });
    // Split inside a multi-byte character: the client must decode across chunks.
    const bytes = Buffer.from(taskJson);
    const split = bytes.indexOf(Buffer.from('é')) + 1;
    response.write(bytes.subarray(0, split));
    response.end(bytes.subarray(split));
  });
});
server.on('connection', () => {
  connections += 1;
});
const served = serveNodeForFile(server);

describe('the default node:http transport', () => {
  it('keeps the connection alive across requests and decodes UTF-8 split across chunks', async () => {
    const client = createA2AHttpClient({ baseUrl: `${served.url}/ok` });
    const before = connections;
    for (let index = 0; index < 5; index += 1) {
      expect((await client.getTask('t1')).output).toBe('héllo wörld');
    }
    expect((await client.createTask({ input: 'x' })).output).toBe('héllo wörld');
    expect(connections - before).toBe(1);
  });

  it('sends a GET again, once, when the server closed the kept-alive connection it reused', async () => {
    const client = createA2AHttpClient({ baseUrl: `${served.url}/reset-reused` });
    await client.getTask('t1');
    const before = connections;
    expect((await client.getTask('t1')).id).toBe('t1');
    expect(connections - before).toBe(1); // the retry opened a fresh connection
  });

  it('does not send a create again on a reset connection: it rejects with RemoteUnreachableError', async () => {
    const client = createA2AHttpClient({ baseUrl: `${served.url}/reset-reused` });
    await client.getTask('t1');
    const error = await client.createTask({ input: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RemoteUnreachableError);
    expect(error).toMatchObject({ operation: 'createTask', status: 502 });
    expect((error as Error).message).toBe(
      `createTask failed: cannot reach ${served.url}/reset-reused/tasks (ECONNRESET)`,
    );
  });

  it('rejects with RemoteUnreachableError when the body is cut short', async () => {
    const error = await createA2AHttpClient({ baseUrl: `${served.url}/cut` })
      .getTask('t1')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RemoteUnreachableError);
    expect(error).toMatchObject({ operation: 'getTask' });
  });

  it('stops reading an answer past 256 Mi characters: MalformedResponseError, not a crash', async () => {
    const error = await createA2AHttpClient({ baseUrl: `${served.url}/huge` })
      .getTask('t1')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error).toMatchObject({ code: 'malformed_response', status: 502 });
    expect((error as Error).message).toBe(
      'getTask failed: the remote answered more than 256 Mi characters',
    );
  });

  it('follows no redirect, with the fetch option too: the request goes nowhere else', async () => {
    for (const options of [{}, { fetch: globalThis.fetch }]) {
      const error = await createA2AHttpClient({ baseUrl: `${served.url}/moved`, ...options })
        .getTask('t1')
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RemoteHttpError);
      expect(error).toMatchObject({ httpStatus: 307, status: 502 });
    }
  });

  it('ends an event stream with CancellationError when the caller aborts mid-stream', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const watching = (async () => {
      for await (const change of createA2AHttpClient({
        baseUrl: `${served.url}/stalled-events`,
      }).watchTask('t1', {
        signal: controller.signal,
      })) {
        seen.push(change.status);
        controller.abort();
      }
    })();
    const error = await watching.catch((caught: unknown) => caught);
    expect(seen).toEqual(['working']);
    expect(error).toBeInstanceOf(CancellationError);
    expect((error as Error).message).toBe('watchTask was canceled');
  });

  it('names the system error of an unreachable remote with the fetch option too', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const client = createA2AHttpClient({ baseUrl: closedUrl, fetch: globalThis.fetch });
    await expect(client.getCard()).rejects.toThrow(
      `getCard failed: cannot reach ${closedUrl}/.well-known/agent.json (ECONNREFUSED)`,
    );
  });
});
