import { type Agent, defineAgent, sleep } from '@agentport/core';

/** An agent that yields one event, then waits for its signal; `aborted` resolves when it does. */
export function createWaitingAgent(name = 'waiter') {
  let markAborted: () => void = () => undefined;
  const aborted = new Promise<void>((resolve) => {
    markAborted = resolve;
  });
  let running = 0;
  const agent = defineAgent({
    name,
    async *run(_input, { signal }) {
      running += 1;
      signal.addEventListener('abort', markAborted, { once: true });
      yield { type: 'text-delta', delta: 'started' };
      await sleep(60_000, signal);
    },
  });
  return { agent, aborted, started: () => running };
}

/** An agent that fails with an error whose message must not reach the caller. */
export function createBrokenAgent(name = 'broken'): Agent {
  return defineAgent({
    name,
    async *run() {
      yield { type: 'text-delta', delta: 'partial' };
      throw new Error('database password=hunter2');
    },
  });
}

/** An agent that is not built with defineAgent and whose event stream throws. */
export function createThrowingAgent(): Agent {
  return {
    name: 'thrower',
    tools: [],
    handoffs: [],
    invoke: () => Promise.reject(new Error('secret detail')),
    stream: () => ({
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.reject(new Error('secret detail')),
      }),
    }),
  };
}

/** An agent that is not built with defineAgent and ends without `done` or `error`. */
export function createUnfinishedAgent(): Agent {
  return {
    name: 'unfinished',
    tools: [],
    handoffs: [],
    invoke: () => Promise.resolve(''),
    async *stream() {
      yield { type: 'text-delta', delta: 'half' };
    },
  };
}

/**
 * An agent whose second event, a tool call with `input` as its input, cannot be serialised
 * (a BigInt, a cycle).
 */
export function createUnserialisableAgent(input: unknown, name = 'unserialisable'): Agent {
  return defineAgent({
    name,
    async *run() {
      yield { type: 'text-delta', delta: 'before' };
      yield { type: 'tool-call', id: '1', name: 'x', input };
    },
  });
}

/**
 * An agent not built with defineAgent whose `invoke` resolves to `result` and whose stream ends
 * with `done` of it as the output, whatever its type.
 */
export function createMistypedAgent(result: unknown, name = 'mistyped'): Agent {
  return {
    name,
    tools: [],
    handoffs: [],
    invoke: () => Promise.resolve(result as string),
    async *stream() {
      yield { type: 'done', output: result as string };
    },
  };
}
