// What a `defineAgent` run may yield (see run-stream.ts, which fails the run at anything else).

/** A non-empty string without a line break. */
const ONE_LINE = /^[^\r\n]+$/;

/**
 * What is wrong with a value a run yielded, or undefined when it is a progress event: the fields
 * every surface reads (a delta the output is made of, a tool event's id and name, a handoff's
 * agents) must be strings, and `done` and `error` are not yielded (a run returns or throws).
 * Other event types pass as they are, when their `type` is a string of one line.
 */
export function progressEventFault(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) {
    return `${value === null ? 'null' : `a ${typeof value}`} for an event`;
  }
  const event = value as Partial<Record<string, unknown>>;
  switch (event.type) {
    case 'text-delta':
      return typeof event.delta === 'string'
        ? undefined
        : `a text-delta whose delta is ${event.delta === undefined ? 'missing' : `a ${typeof event.delta}`}`;
    case 'tool-call':
    case 'tool-result':
      return typeof event.id === 'string' && typeof event.name === 'string'
        ? undefined
        : `a ${event.type} without a string id and name`;
    case 'handoff':
      return typeof event.from === 'string' && typeof event.to === 'string'
        ? undefined
        : 'a handoff without string from and to';
    case 'done':
    case 'error':
      return `${event.type === 'done' ? 'a done' : 'an error'} event (a run returns its output or throws)`;
    default:
      // Any other type passes on, as long as every surface can name it (an SSE `event:` line).
      return typeof event.type === 'string' && ONE_LINE.test(event.type)
        ? undefined
        : 'an event without a one-line string type';
  }
}
