/** What V8 takes for an object or array before its entries, and for each entry, roughly. */
const OBJECT_BYTES = 56;
const ENTRY_BYTES = 16;
/** A string's header; its characters take 1 or 2 bytes each (counted as 2). */
const STRING_BYTES = 24;
/** A number, boolean or null held in an entry (a heap number at most). */
const SCALAR_BYTES = 16;

/**
 * Roughly how many bytes of memory a JSON-like value holds in V8 (walked without recursion):
 * what a store that keeps such values counts against its budget. A 1 MB body of 300,000 empty
 * arrays holds ~12 MB once parsed, which its JSON length would not tell. Typed arrays count their
 * bytes; functions and the like count as a scalar.
 *
 * @example
 * jsonWeight({ trace: 'abc' }); // ~130
 */
export function jsonWeight(value: unknown): number {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') bytes += STRING_BYTES + 2 * next.length;
    else if (typeof next !== 'object' || next === null) bytes += SCALAR_BYTES;
    else if (ArrayBuffer.isView(next)) bytes += OBJECT_BYTES + next.byteLength;
    else if (Array.isArray(next)) {
      bytes += OBJECT_BYTES + ENTRY_BYTES * next.length;
      for (const child of next) pending.push(child);
    } else {
      for (const key in next) {
        if (!Object.hasOwn(next, key)) continue;
        bytes += ENTRY_BYTES + STRING_BYTES + 2 * key.length;
        pending.push((next as Record<string, unknown>)[key]);
      }
      bytes += OBJECT_BYTES;
    }
  }
  return bytes;
}
