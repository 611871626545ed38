import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { AgentPortError } from '@agentport/core';
import { errorAnswer } from './error-response.ts';

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

/**
 * A `node:http` server's `clientError` listener: what Node's parser refuses (malformed HTTP,
 * headers past Node's limit, a request not received within `requestTimeout`) is answered in the
 * JSON error shape, with the status Node would give it (400, 431, 413 or 408) and
 * `Connection: close`, where Node writes a bare status line. As Node's own handler does, it writes
 * the answer and destroys the socket; nothing is written when the socket is gone or an answer on
 * it has begun (which the bytes would corrupt).
 *
 * @example
 * server.on('clientError', answerClientError);
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // The answer in progress on this socket, as Node's own handler checks it.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (error.code !== 'ECONNRESET' && socket.writable && inFlight?.headersSent !== true) {
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
