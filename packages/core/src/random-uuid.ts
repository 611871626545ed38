const HEX_DIGITS = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));
const DASH = 0x2d;
/** Random bytes for 256 ids, drawn at once (as `crypto.randomUUID` does). */
const pool = new Uint8Array(16 * 256);
let used = pool.length;
const codes = new Array<number>(36);

/**
 * A random (version 4) UUID, as `crypto.randomUUID()` draws it (from the same CSPRNG, 256 at a
 * time), built as one flat string: Node concatenates its UUIDs, a rope of some twenty pieces that
 * the first hash, header check or socket write of the id must flatten (~1 µs of a create-and-wait
 * on a task id used as a map key, written in JSON and in `Location`).
 *
 * @example
 * const id = randomUuid(); // '3fee0992-501b-40ad-8a27-ba7cf4d70adc'
 */
export function randomUuid(): string {
  if (used === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    used = 0;
  }
  let at = 0;
  for (let index = 0; index < 16; index += 1) {
    let byte = pool[used + index] as number;
    if (index === 6) byte = (byte & 0x0f) | 0x40;
    else if (index === 8) byte = (byte & 0x3f) | 0x80;
    if (index === 4 || index === 6 || index === 8 || index === 10) codes[at++] = DASH;
    codes[at++] = HEX_DIGITS[byte >> 4] as number;
    codes[at++] = HEX_DIGITS[byte & 0x0f] as number;
  }
  used += 16;
  return String.fromCharCode(...codes);
}
