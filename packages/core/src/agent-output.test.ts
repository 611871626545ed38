import { describe, expect, it } from 'vitest';
import type { AgentEvent } from './agent-event.ts';
import { outputOf, terminalEventOf } from './agent-output.ts';
import { defineAgent } from './define-agent.ts';

async function* events(...list: AgentEvent[]): AsyncGenerator<AgentEvent> {
  yield* list;
}

describe('outputOf', () => {
  it('reads a plain async iterable: the done output, the error, or a failure when neither comes', async () => {
    await expect(
      outputOf(events({ type: 'text-delta', delta: 'a' }, { type: 'done', output: 'a' }), 'x'),
    ).resolves.toBe('a');
    await expect(
      outputOf(events({ type: 'error', code: 'quota', message: 'Out of quota' }), 'x'),
    ).rejects.toMatchObject({ code: 'quota', message: 'Out of quota' });
    await expect(outputOf(events({ type: 'text-delta', delta: 'a' }), 'x')).rejects.toMatchObject({
      code: 'agent_failure',
      message: "Agent 'x' ended without a result",
    });
  });

  it("reads a hand-written agent's error event on the caller's input as a 400, like a remote's", async () => {
    for (const code of ['invalid_input', 'invalid_tool_arguments']) {
      await expect(
        outputOf(events({ type: 'error', code, message: 'nope' }), 'x'),
      ).rejects.toMatchObject({ code, message: 'nope', status: 400 });
    }
    await expect(
      outputOf(events({ type: 'error', code: 'quota', message: 'Out of quota' }), 'x'),
    ).rejects.toMatchObject({ name: 'AgentFailureError', code: 'quota', status: 500 });
  });

  it('fails as agent_failure on a done output that is not a string', async () => {
    const failure = await outputOf(
      events({ type: 'done', output: 42 as unknown as string }),
      'x',
    ).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'agent_failure', message: "Agent 'x' failed" });
    expect(String((failure as Error).cause)).toBe(
      "TypeError: Agent 'x' ended with a number output, not a string",
    );
  });

  it('takes a defineAgent stream by push, with the same results, and closes its run', async () => {
    let closed = false;
    const agent = defineAgent({
      name: 'pushed',
      async *run(input) {
        try {
          if (input === 'fail') throw new Error('hidden');
          yield { type: 'text-delta', delta: input };
        } finally {
          closed = true;
        }
      },
    });
    type Push = (observer: unknown) => void;
    const stream = agent.stream('hello') as AsyncIterable<AgentEvent> & Record<symbol, Push>;
    const PUSH = Symbol.for('agentport.agent-events.push');
    const push = stream[PUSH] as Push;
    let pushed = 0;
    stream[PUSH] = function (this: unknown, observer: unknown) {
      pushed += 1;
      return push.call(this, observer);
    };
    await expect(outputOf(stream, 'pushed')).resolves.toBe('hello');
    expect(pushed).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(closed).toBe(true);
    await expect(outputOf(agent.stream('fail'), 'pushed')).rejects.toMatchObject({
      code: 'agent_failure',
    });
    const broken = defineAgent({
      name: 'broken',
      run: () => {
        throw new TypeError('not a generator');
      },
    });
    await expect(outputOf(broken.stream('x'), 'broken')).rejects.toThrow('not a generator');
  });
});

describe('terminalEventOf', () => {
  const progress = { type: 'text-delta', delta: 'a' } as const;
  const done = { type: 'done', output: 'a' } as const;

  it('hands progress events over and resolves with the terminal one, iterated or pushed', async () => {
    const echo = defineAgent({
      name: 'echo',
      async *run(input) {
        yield { type: 'text-delta', delta: input };
      },
    });
    for (const stream of [events(progress, done), echo.stream('a')]) {
      const seen: AgentEvent[] = [];
      await expect(terminalEventOf(stream, (event) => seen.push(event))).resolves.toEqual(done);
      expect(seen).toEqual([progress]);
    }
    await expect(terminalEventOf(events(progress))).resolves.toBeUndefined();
    const failure = { type: 'error', code: 'quota', message: 'Out of quota' } as const;
    await expect(terminalEventOf(events(failure, done))).resolves.toEqual(failure);
  });

  it('rejects with what the progress handler throws and closes a pushed run', async () => {
    let closed = false;
    const agent = defineAgent({
      name: 'long',
      async *run() {
        try {
          yield progress;
          yield progress;
        } finally {
          closed = true;
        }
      },
    });
    const handler = () => {
      throw new Error('store down');
    };
    await expect(terminalEventOf(agent.stream('x'), handler)).rejects.toThrow('store down');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(closed).toBe(true);
  });

  it('stops reading an iterated stream at once when the signal aborts, without waiting for it', async () => {
    let returned = false;
    const stuck: AsyncIterableIterator<AgentEvent> = {
      [Symbol.asyncIterator]: () => stuck,
      next: () => new Promise<never>(() => undefined),
      return: () => {
        returned = true;
        return new Promise<never>(() => undefined);
      },
    };
    const controller = new AbortController();
    const read = terminalEventOf(stuck, undefined, controller.signal);
    controller.abort();
    await expect(read).rejects.toMatchObject({ code: 'canceled' });
    expect(returned).toBe(true);
  });
});
