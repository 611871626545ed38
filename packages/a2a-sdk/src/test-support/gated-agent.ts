import { type Agent, AgentFailureError, defineAgent } from '@agentport/core';

/** How a held run ends when released. */
export type GateOutcome = 'complete' | 'fail';

/** An agent whose runs each wait until the test releases them (or their signal aborts). */
export interface GatedAgent {
  readonly agent: Agent;
  /** The inputs of the runs that started, in the order they started. */
  readonly started: string[];
  /**
   * Ends the run of `input`, now or as soon as it starts: `complete` answers `done <input>`,
   * `fail` fails it with an AgentFailureError.
   */
  release(input: string, outcome?: GateOutcome): void;
}

interface Gate {
  readonly opened: Promise<GateOutcome>;
  open(outcome: GateOutcome): void;
}

function newGate(): Gate {
  let open: (outcome: GateOutcome) => void = () => {};
  const opened = new Promise<GateOutcome>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** Creates a {@link GatedAgent}: deterministic runs that last exactly as long as a test wants. */
export function createGatedAgent(name = 'gated'): GatedAgent {
  const started: string[] = [];
  const gates = new Map<string, Gate>();
  const gateOf = (input: string): Gate => {
    let gate = gates.get(input);
    if (gate === undefined) {
      gate = newGate();
      gates.set(input, gate);
    }
    return gate;
  };
  const agent = defineAgent({
    name,
    description: 'Holds each run until released',
    async *run(input, { signal }) {
      started.push(input);
      const aborted = new Promise<'aborted'>((resolve) =>
        signal.addEventListener('abort', () => resolve('aborted'), { once: true }),
      );
      const outcome = await Promise.race([gateOf(input).opened, aborted]);
      if (outcome === 'aborted') return;
      if (outcome === 'fail') {
        throw new AgentFailureError({ agentName: name, message: `'${input}' failed on purpose` });
      }
      yield { type: 'text-delta', delta: `done ${input}` };
    },
  });
  return {
    agent,
    started,
    release: (input, outcome = 'complete') => gateOf(input).open(outcome),
  };
}
