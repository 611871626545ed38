import {
  createRunner,
  type Runner,
  type RunOptions,
  type RunRequest,
  type RunResponse,
} from '@agentport/compat';
import { type Agent, AgentNotFoundError, type AgentPortError } from '@agentport/core';

/** The compat surface's runner, over the agents the gateway serves as they change. */
export interface GatewayRunner {
  /** Runs the agents last given to {@link GatewayRunner.serve}. */
  readonly runner: Runner;
  /** Serves these agents from now on (compat's definitions are computed once per runner). */
  serve(agents: readonly Agent[]): void;
}

/** A refusal as a compat runner gives one: thrown at once for a stream, else as the promise. */
function refuse(request: RunRequest, error: AgentPortError): Promise<RunResponse> {
  if (request?.stream === true) throw error;
  return Promise.reject(error);
}

/** A runner of no agents (createRunner needs one): every name is unknown. */
const NO_AGENTS: Runner = {
  run: ((request: RunRequest) =>
    refuse(request, new AgentNotFoundError(String(request?.agent_name)))) as Runner['run'],
  listAgents: () => [],
  getAgentDef: (name) => {
    throw new AgentNotFoundError(name);
  },
};

/**
 * A compat runner that answers a name `unavailable` refuses (a remote agent not available yet)
 * with that error, and runs everything else on a compat runner of the agents served now.
 */
export function createGatewayRunner(
  unavailable: (name: string) => AgentPortError | undefined,
): GatewayRunner {
  let current = NO_AGENTS;

  const run = ((request: RunRequest, options?: RunOptions) => {
    const name = request?.agent_name;
    const refused = typeof name === 'string' ? unavailable(name) : undefined;
    return refused === undefined ? current.run(request, options) : refuse(request, refused);
  }) as Runner['run'];

  return {
    runner: {
      run,
      listAgents: () => current.listAgents(),
      getAgentDef(name) {
        const refused = unavailable(name);
        if (refused !== undefined) throw refused;
        return current.getAgentDef(name);
      },
    },
    serve(agents) {
      current = agents.length === 0 ? NO_AGENTS : createRunner({ agents });
    },
  };
}
