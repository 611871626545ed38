import { createServer, request as httpRequest, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readAnswer } from '../testing/serve.ts';
import { BatchingServerResponse } from './batching-response.ts';

let servers: ReturnType<typeof createServer>[] = [];

/** A server answering with BatchingServerResponse; `handle` gets each request's response. */
async function serve(handle: (response: ServerResponse) => void): Promise<number> {
  const server = createServer({ ServerResponse: BatchingServerResponse }, (request, response) => {
    request.resume();
    request.on('end', () => handle(response));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

afterEach(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  servers = [];
});

/** A GET on its own connection: its body, or the error of a connection cut off. */
function get(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ port, host: '127.0.0.1', agent: false }, (response) => {
      readAnswer(response).then(({ text }) => resolve(text), reject);
    });
    sent.on('error', reject);
    sent.end();
  });
}

/**
 * What a response's socket has handed to the kernel so far (`bytesWritten` counts what it holds
 * too). Read through `socketOf`: a finished response lets its socket go.
 */
const sentBy = (socket: Socket) => socket.bytesWritten - socket.writableLength;
const socketOf = (response: ServerResponse) => response.socket as Socket;

describe('BatchingServerResponse', () => {
  it("holds an answer's bytes until the end of the turn, and says it has ended meanwhile", async () => {
    const seen: Record<string, unknown>[] = [];
    const port = await serve((response) => {
      const socket = socketOf(response);
      response.end('hello');
      const atOnce = { bytes: sentBy(socket), ended: response.writableEnded };
      setImmediate(() => seen.push({ atOnce, afterTurn: sentBy(socket) > 0 }));
    });
    expect(await get(port)).toBe('hello');
    expect(seen).toEqual([{ atOnce: { bytes: 0, ended: true }, afterTurn: true }]);
  });

  it('sends the answers of one turn together, at its end', async () => {
    const waiting: ServerResponse[] = [];
    const sent: number[][] = [];
    const port = await serve((response) => {
      waiting.push(response);
      if (waiting.length < 2) return;
      const sockets = waiting.map(socketOf);
      for (const [index, each] of waiting.entries()) each.end(`answer ${index}`);
      sent.push(sockets.map(sentBy));
      setImmediate(() => sent.push(sockets.map((socket) => Math.sign(sentBy(socket)))));
    });
    const answers = await Promise.all([get(port), get(port)]);
    expect(answers.sort()).toEqual(['answer 0', 'answer 1']);
    expect(sent).toEqual([
      [0, 0],
      [1, 1],
    ]);
  });

  it("sends a stream's writes of a turn at its end, and every chunk in order", async () => {
    const seen: number[] = [];
    const port = await serve((response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('a');
      const socket = socketOf(response);
      // Node's own cork lasts until the next tick, and this one follows it.
      process.nextTick(() => seen.push(sentBy(socket)));
      process.nextTick(() => {
        response.write('b');
        setTimeout(() => {
          response.write('c');
          response.end('d');
        }, 5);
      });
    });
    expect(await get(port)).toBe('abcd');
    expect(seen).toEqual([0]);
  });

  it('answers an end or a write after end as Node does (the held end goes at once)', async () => {
    const errors: unknown[] = [];
    const port = await serve((response) => {
      response.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code));
      response.end('first');
      response.end('second');
      response.write('late');
    });
    expect(await get(port)).toBe('first');
    expect(errors).toEqual(['ERR_STREAM_WRITE_AFTER_END', 'ERR_STREAM_WRITE_AFTER_END']);
  });

  it('drops the held answer of a caller who left, quietly, and sends the others', async () => {
    const waiting: ServerResponse[] = [];
    const errors: unknown[] = [];
    const port = await serve((response) => {
      response.on('error', (error) => errors.push(error));
      waiting.push(response);
      if (waiting.length < 2) return;
      const [left, staying] = waiting as [ServerResponse, ServerResponse];
      left.end('to the one who left');
      staying.end('to the one who stayed');
      // Its connection goes, as when the caller leaves (Node sets `destroyed` on its close).
      left.socket?.destroy();
    });
    const settled = await Promise.allSettled([get(port), get(port)]);
    const bodies = settled.map((each) => (each.status === 'fulfilled' ? each.value : 'cut off'));
    expect(bodies.sort()).toEqual(['cut off', 'to the one who stayed']);
    expect(errors).toEqual([]);
  });

  it("lets a turn's writes past the socket's high-water mark go at once (no backlog for a fast reader)", async () => {
    const backlog: number[] = [];
    const chunk = 'y'.repeat(100_000);
    const port = await serve(async (response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      for (let index = 0; index < 12; index += 1) {
        response.write(chunk);
        backlog.push(response.writableLength);
        await new Promise((resolve) => process.nextTick(resolve));
      }
      response.end();
    });
    expect((await get(port)).length).toBe(12 * chunk.length);
    expect(Math.max(...backlog)).toBeLessThan(2 * chunk.length);
  });

  it('makes a held end before a destroy that follows it (an answer, then its connection cut)', async () => {
    const port = await serve((response) => {
      response.end('the last words');
      response.destroy();
    });
    expect(await get(port)).toBe('the last words');
  });

  it('cuts the connection of an end Node refuses once the turn ends, without throwing there', async () => {
    const port = await serve((response) => {
      response.end(42 as never);
    });
    await expect(get(port)).rejects.toThrow();
  });

  it('answers pipelined requests in order (a response waiting for its socket is not held)', async () => {
    const port = await serve((response) => response.end(`for ${response.req.url}`));
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.write('GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(() => received.match(/for \/\d/g)).toEqual(['for /1', 'for /2']);
    socket.destroy();
  });
});
