import { describe, expect, it } from 'vitest';
import type { AgentEvent } from './agent-event.ts';
import { outputOf } from './agent-output.ts';
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
