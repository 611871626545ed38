/**
 * The most characters of an answer the `node:http` transport reads as text: above anything an
 * AgentPort server answers (its memory store holds 128 MiB in all), below V8's longest string
 * (~512 Mi characters), past which appending threw inside a stream listener and ended the process.
 */
export const MAX_ANSWER_CHARACTERS = 256 * 1024 * 1024;

/** An answer longer than {@link MAX_ANSWER_CHARACTERS}: its reading was stopped there. */
export class AnswerTooLargeError extends Error {
  constructor() {
    super(`more than ${MAX_ANSWER_CHARACTERS / 1024 / 1024} Mi characters`);
    this.name = 'AnswerTooLargeError';
  }
}
