import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { AgentPortError } from '@agentport/core';
import { errorAnswer } from '../error-response.ts';

/** What Node's HTTP parser and timers refuse, as the error it is answered with. */
function refusal(error: NodeJS.ErrnoException): AgentPortError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AgentPortError({
        code: 'headers_too_large',
        message: 'Request headers too large',
        status: 431,
      });
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new AgentPortError({
        code: 'payload_too_large',
        message: 'Request chunk extensions too large',
        status: 413,
      });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AgentPortError({
        code: 'request_timeout',
        message: 'The request was not received in time',
        status: 408,
      });
    default:
      return new AgentPortError({
        code: 'bad_request',
        message: 'Malformed HTTP request',
        status: 400,
      });
  }
}

/** A whole HTTP/1.1 answer of an error (its JSON error answer) that ends the connection. */
function rawErrorAnswer(error: AgentPortError): string {
  const { status, headers, body } = errorAnswer(error);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    `Content-Type: ${headers['content-type']}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** Node's response in progress on a socket, and whether any of its bytes went to the socket. */
type InFlightSocket = Duplex & {
  _httpMessage?: (ServerResponse & { _headerSent?: boolean }) | null;
};

/**
 * A `node:http` server's `clientError` listener: what Node's parser refuses (malformed HTTP,
 * headers past Node's limit, a request not received within `requestTimeout`) is answered in the
 * JSON error shape, with the status Node would give it (400, 431, 413 or 408) and
 * `Connection: close`, where Node writes a bare status line. As Node's own handler does, it writes
 * the answer and destroys the socket. The answer takes the place of one in progress on the socket
 * whose head is only stored so far (a request whose body framing is broken, such as a GET with a
 * `Content-Length` shorter than its body, is dispatched before the parser reaches the bad bytes,
 * and may be answered at once); nothing is written when the socket is gone or bytes of an answer
 * have gone to it (which the answer would corrupt): those leave, then the socket is destroyed.
 *
 * @example
 * server.on('clientError', answerClientError);
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // The answer in progress on this socket, checked as Node's own handler does: `_headerSent`,
  // set once its first bytes are written to the socket, not `headersSent`, true from `writeHead`
  // on (a `BatchingServerResponse` holds an answer's bytes until the end of the turn).
  const inFlight = (socket as InFlightSocket)._httpMessage;
  // Bytes held back by a `BatchingServerResponse` leave before the socket goes, as Node's would
  // have left at once.
  while (socket.writableCorked > 0) socket.uncork();
  if (error.code !== 'ECONNRESET' && socket.writable && inFlight?._headerSent !== true) {
    const refused = refusal(error);
    socket.write(rawErrorAnswer(refused));
    if (inFlight != null) answeredInstead.set(inFlight, refused.status);
  }
  socket.destroy();
}

/** The responses whose request {@link answerClientError} answered in their place, with its status. */
const answeredInstead = new WeakMap<ServerResponse, number>();

/**
 * The status {@link answerClientError} answered a request with in place of its response (a 408
 * for a body still arriving at the request timeout), or undefined: such a response never
 * finishes, but its caller got an answer, which an access log should say rather than 499.
 *
 * @example
 * const status = response.writableFinished ? response.statusCode : (answeredInsteadOf(response) ?? 499);
 */
export function answeredInsteadOf(response: ServerResponse): number | undefined {
  return answeredInstead.get(response);
}

/**
 * A `node:http` server's `checkExpectation` listener: a request whose `Expect` is anything but
 * `100-continue` gets a JSON 417 `expectation_failed` (Node's own answer has no body). The
 * request body is not read, so the connection ends.
 */
export function answerExpectationFailed(request: IncomingMessage, response: ServerResponse): void {
  const expectation = request.headers.expect ?? '';
  const { status, headers, body } = errorAnswer(
    new AgentPortError({
      code: 'expectation_failed',
      message: `Unsupported Expect header: '${expectation.slice(0, 100)}'`,
      status: 417,
    }),
  );
  response.writeHead(status, {
    ...headers,
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
}
