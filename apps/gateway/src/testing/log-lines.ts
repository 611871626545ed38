import { Writable } from 'node:stream';

/** A stream for a test logger: every line written lands in `lines`. */
export function collectLines(): { lines: string[]; destination: Writable } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  return { lines, destination };
}
