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
