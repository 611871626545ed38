import { partsFault } from './message.ts';

// What a `defineAgent` run may yield (see run-stream.ts, which fails the run at anything else).

/** A non-empty string without a line break. */
const ONE_LINE = /^[^\r\n]+$/;

function artifactFault(event: Partial<Record<string, unknown>>): string | undefined {
  if (typeof event.artifactId !== 'string' || event.artifactId === '') {
    return 'an artifact-update without a string artifactId';
  }
  if (event.name !== undefined && typeof event.name !== 'string') {
    return 'an artifact-update whose name is not a string';
  }
  for (const flag of [event.append, event.lastChunk]) {
    if (flag !== undefined && typeof flag !== 'boolean') {
      return 'an artifact-update whose append or lastChunk is not a boolean';
    }
  }
  const fault = partsFault(event.parts);
  return fault === undefined ? undefined : `an artifact-update with ${fault}`;
}

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
    case 'artifact-update':
      return artifactFault(event);
    case 'done':
    case 'error':
      return `${event.type === 'done' ? 'a done' : 'an error'} event (a run returns its output or throws)`;
    case 'input-required':
      return 'an input-required event (a run returns inputRequired(...) to pause)';
    default:
      // Any other type passes on, as long as every surface can name it (an SSE `event:` line).
      return typeof event.type === 'string' && ONE_LINE.test(event.type)
        ? undefined
        : 'an event without a one-line string type';
  }
}
