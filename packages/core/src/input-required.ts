import type { InputRequiredEvent } from './agent-event.ts';
import type { Part } from './message.ts';
import type { JsonSchema } from './tool.ts';

/** What {@link inputRequired} takes besides the question. */
export interface InputRequiredOptions {
  /** The JSON Schema of the answer the agent expects. */
  schema?: JsonSchema;
  /** JSON the agent wants back as `context.resumeState` when the answer comes. */
  state?: unknown;
}

/**
 * The value a `defineAgent` run returns to pause for its caller: the task moves to
 * `input-required` with `question`, and the caller's next message on it runs the agent again.
 *
 * @example
 * async *run(input, context) {
 *   if (context.resumeState === undefined) return inputRequired('For how many people?', { state: 1 });
 *   yield { type: 'text-delta', delta: `Booked for ${input}` };
 * }
 */
export function inputRequired(
  question: string | readonly Part[],
  options: InputRequiredOptions = {},
): InputRequiredEvent {
  const parts: readonly Part[] =
    typeof question === 'string' ? [{ kind: 'text', text: question }] : question;
  const event: InputRequiredEvent = { type: 'input-required', question: parts };
  if (options.schema !== undefined) event.schema = options.schema;
  if (options.state !== undefined) event.state = options.state;
  return event;
}

/** Whether a run's returned value is a pause (what {@link inputRequired} makes). */
export function isInputRequired(value: unknown): value is InputRequiredEvent {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'input-required' &&
    Array.isArray((value as { question?: unknown }).question)
  );
}
