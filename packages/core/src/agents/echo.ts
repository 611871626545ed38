import type { Agent } from '../agent.ts';
import { defineAgent } from '../define-agent.ts';

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
    // A long input (a 1 MB body is 500,000 words) does not hold the event loop for the whole
    // run: the run loop gives it a turn every few milliseconds (see run-pace.ts).
    async *run(input) {
      for (const word of input.split(/(?<=\S)(?=\s)/)) {
        if (word !== '') yield { type: 'text-delta', delta: word };
      }
    },
  });
}
