import type { ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { answerClientError, answeredInsteadOf } from './client-error.ts';

/** A socket that keeps what is written to it. */
function fakeSocket(inFlight?: Partial<ServerResponse>) {
  const written: string[] = [];
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString());
      callback();
    },
  });
  if (inFlight !== undefined) Object.assign(socket, { _httpMessage: inFlight });
  return { socket, written };
}

function failure(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(code), { code });
}

describe('answerClientError', () => {
  it.each([
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'request_timeout'],
    ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 413, 'payload_too_large'],
    ['HPE_HEADER_OVERFLOW', 431, 'headers_too_large'],
    ['HPE_INVALID_METHOD', 400, 'bad_request'],
  ])('answers %s with %i %s and destroys the socket', (errorCode, status, code) => {
    const { socket, written } = fakeSocket();
    answerClientError(failure(errorCode), socket);
    const answer = written.join('');
    expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(JSON.parse(answer.slice(answer.indexOf('{')))).toMatchObject({ error: { code } });
    expect(socket.destroyed).toBe(true);
  });

  it('writes nothing once bytes of an answer have gone to the socket, or when the peer reset it', () => {
    const begun = fakeSocket({ headersSent: true, _headerSent: true } as Partial<ServerResponse>);
    answerClientError(failure('HPE_INVALID_METHOD'), begun.socket);
    const reset = fakeSocket();
    answerClientError(failure('ECONNRESET'), reset.socket);
    expect([begun.written, reset.written]).toEqual([[], []]);
    expect([begun.socket.destroyed, reset.socket.destroyed]).toEqual([true, true]);
  });

  it('answers in place of an answer whose head is only stored, none of it written yet', () => {
    // As `writeHead` leaves a response whose bytes a BatchingServerResponse holds to the turn's end.
    const stored = { headersSent: true, _headerSent: false } as Partial<ServerResponse>;
    const { socket, written } = fakeSocket(stored);
    answerClientError(failure('HPE_INVALID_METHOD'), socket);
    expect(written.join('')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answeredInsteadOf(stored as ServerResponse)).toBe(400);
    expect(socket.destroyed).toBe(true);
  });

  it('lets bytes held on a corked socket go before it destroys it', () => {
    const { socket, written } = fakeSocket({ _headerSent: true } as Partial<ServerResponse>);
    socket.cork();
    socket.write('HTTP/1.1 200 OK\r\n');
    answerClientError(failure('HPE_INVALID_CHUNK_SIZE'), socket);
    expect(written.join('')).toBe('HTTP/1.1 200 OK\r\n');
    expect(socket.destroyed).toBe(true);
  });
});
