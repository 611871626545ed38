import type { Agent } from '@agentport/core';

/**
 * What every framework adapter's scripted agent does, whatever the framework, so that one suite
 * drives each of them on every surface of the gateway. Each agent runs its framework's own test
 * double of a model (no network), which answers by the text of the newest user message it sees:
 *
 * - contains `weather`: calls the tool `weather` with `{ city: 'Paris' }` (the tool answers
 *   `{ city, degrees: 21 }`), then streams `WEATHER.answer` in at least three text deltas;
 * - contains `book`: calls the tool `book` with `{ room: 'blue' }`, which needs the caller's
 *   approval (the run pauses in input-required with a question containing `book`); approved
 *   ("yes"), the tool runs and the model says `BOOKING.approved`; denied ("no"), `BOOKING.denied`;
 * - contains `hang`: streams the text `HANG.first`, then nothing more until its abort signal fires,
 *   then records the abort (so a caller cancels once it has seen the first text);
 * - anything else: answers `heard: ` and the texts of every user message it was given (the
 *   conversation's history and the new one), oldest first, joined by ` | `.
 */
export interface ScriptedAgent {
  /** The adapter's AgentPort agent, named `name`. */
  readonly agent: Agent;
  /** How many model calls of a `hang` turn have seen their abort signal fire. */
  abortsSeen(): number;
}

/** The weather turn: one tool call, then a streamed answer. */
export const WEATHER = {
  prompt: 'What is the weather in Paris?',
  tool: 'weather',
  input: { city: 'Paris' },
  output: { city: 'Paris', degrees: 21 },
  answer: 'It is 21 degrees in Paris.',
} as const;

/** The booking turn: a tool that waits for the caller's approval. */
export const BOOKING = {
  prompt: 'Please book the blue room',
  tool: 'book',
  input: { room: 'blue' },
  approved: 'Booked the blue room.',
  denied: 'The blue room was not booked.',
} as const;

/** A turn whose model call waits for its abort. */
export const HANG = { prompt: 'Hang on until cancelled', first: 'waiting' } as const;

/** The answer of any other turn, given the user texts the model saw. */
export function heard(userTexts: readonly string[]): string {
  return `heard: ${userTexts.join(' | ')}`;
}

/** The texts of a script's turn a model reads, to pick what it does. */
export function turnOf(newestUserText: string): 'weather' | 'book' | 'hang' | 'heard' {
  if (newestUserText.includes('weather')) return 'weather';
  if (newestUserText.includes('book')) return 'book';
  if (newestUserText.includes('hang') || newestUserText.includes('Hang')) return 'hang';
  return 'heard';
}
