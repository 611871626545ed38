import type { Agent } from '../agent.ts';
import { defineAgent } from '../define-agent.ts';

/** How many words the echo agent streams before it gives the event loop a turn. */
const WORDS_PER_TURN = 256;

/** Resolves on a later turn of the event loop (after pending I/O), where the runtime has one. */
const nextTurn: () => Promise<void> =
  typeof globalThis.setImmediate === 'function'
    ? () => new Promise((resolve) => globalThis.setImmediate(resolve))
    : () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Creates the `echo` agent: it streams its input back word by word (whitespace kept), so its
 * output is exactly its input.
 */
export function createEchoAgent(name = 'echo'): Agent {
  return defineAgent({
    name,
    description: 'Streams its input back word by word.',
    instructions: 'Repeat the input exactly.',
    model: 'agentport/echo',
    async *run(input) {
      let count = 0;
      for (const word of input.split(/(?<=\S)(?=\s)/)) {
        if (word === '') continue;
        yield { type: 'text-delta', delta: word };
        // A long input (a 1 MB body is 500,000 words) lets other requests in every so often,
        // rather than holding the event loop for the whole run.
        count += 1;
        if (count % WORDS_PER_TURN === 0) await nextTurn();
      }
    },
  });
}
