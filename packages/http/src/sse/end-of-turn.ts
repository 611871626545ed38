/** What {@link atEndOfTurn} returns, for {@link cancelEndOfTurn}. */
export type EndOfTurn = unknown;

/**
 * Calls `callback(argument)` once the current turn of the event loop is over (after the I/O
 * callbacks that are ready): `setImmediate` where the runtime has it (Node, Bun, Deno), else a
 * zero-delay timeout. Looked up at each call, so fake timers installed later apply.
 */
export function atEndOfTurn<T>(callback: (argument: T) => void, argument: T): EndOfTurn {
  return typeof setImmediate === 'function'
    ? setImmediate(callback, argument)
    : setTimeout(callback, 0, argument);
}

/** Cancels a call {@link atEndOfTurn} scheduled. */
export function cancelEndOfTurn(handle: EndOfTurn): void {
  if (typeof clearImmediate === 'function')
    clearImmediate(handle as Parameters<typeof clearImmediate>[0]);
  else clearTimeout(handle as Parameters<typeof clearTimeout>[0]);
}
