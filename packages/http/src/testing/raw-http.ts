import { connect } from 'node:net';

/**
 * Sends `text` in one write on a new connection to 127.0.0.1:`port`; resolves with everything the
 * server writes back once it closes the connection (rejects when it is still open after
 * `timeoutMs`).
 */
export function exchangeRaw(port: number, text: string, timeoutMs = 2_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection is still open, after ${JSON.stringify(answer)}`));
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
  });
}

/** How a server refused an upload: the head of its answer, lower-cased, and when things happened. */
export interface RefusedUpload {
  head: string;
  /** When the answer's first bytes came, in ms after the request's head was sent. */
  answeredMs: number;
  /** When the server closed the connection, in ms after the request's head was sent. */
  closedMs: number;
}

/**
 * Sends a request's `head` (ending in its blank line) to 127.0.0.1:`port`, then uploads 16 KiB
 * every 2 ms (as chunks when the head says `transfer-encoding: chunked`) until the server closes
 * the connection; rejects when it is still open after `timeoutMs`.
 */
export function uploadUntilClosed(
  port: number,
  head: string,
  timeoutMs = 3_000,
): Promise<RefusedUpload> {
  const piece = Buffer.alloc(16 * 1024, 'x');
  const upload = /\r\ntransfer-encoding: chunked\r\n/i.test(head)
    ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
    : piece;
  return new Promise((resolve, reject) => {
    let answer = '';
    let answeredMs: number | undefined;
    const started = performance.now();
    let uploader: ReturnType<typeof setInterval> | undefined;
    // The upload starts once the head is written: writes queued while connecting would go first.
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head);
      uploader = setInterval(() => {
        if (socket.writable) socket.write(upload);
      }, 2);
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection is still open, after ${JSON.stringify(answer)}`));
    }, timeoutMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answeredMs ??= performance.now() - started;
      answer += chunk;
    });
    // The server stops reading: writes of the rest of the upload fail.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const closedMs = performance.now() - started;
      clearInterval(uploader);
      clearTimeout(timer);
      const end = answer.indexOf('\r\n\r\n');
      const answered = answer.slice(0, end === -1 ? answer.length : end).toLowerCase();
      resolve({ head: answered, answeredMs: answeredMs ?? Number.NaN, closedMs });
    });
  });
}
