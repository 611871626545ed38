import type { Agent } from '../agent.ts';

/**
 * A hand-written agent (not `defineAgent`) named `numeric` whose runs end with the number 42 for
 * output, where a string must be: its `done` event and its `invoke` alike. What `checkedOutput`
 * refuses, for the tests of everything that reads an agent's output.
 */
export function createNumericAgent(): Agent {
  return {
    name: 'numeric',
    tools: [],
    handoffs: [],
    invoke: async () => 42 as unknown as string,
    async *stream() {
      yield { type: 'done', output: 42 as unknown as string };
    },
  };
}
