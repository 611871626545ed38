/**
 * Whether a JSON value's objects and arrays nest at most `limit` deep, the value itself being 1
 * (walked without recursion, so any depth can be asked about). A value nested a few thousand
 * deep parses, but `JSON.stringify` and any recursive walk overflow the stack on it: surfaces
 * that store what they are sent and answer with it refuse such values first.
 *
 * @example
 * nestsWithin({ a: { b: [1] } }, 3); // true
 * nestsWithin({ a: { b: [1] } }, 2); // false
 */
export function nestsWithin(value: unknown, limit: number): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth > limit) return false;
    for (const child of Object.values(next.value)) {
      if (typeof child === 'object' && child !== null) {
        pending.push({ value: child, depth: next.depth + 1 });
      }
    }
  }
  return true;
}
