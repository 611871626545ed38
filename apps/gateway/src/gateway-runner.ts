import {
  createRunner,
  type Runner,
  type RunOptions,
  type RunRequest,
  type RunResponse,
  type StreamingRunRequest,
} from '@agentport/compat';
import {
  type Agent,
  type AgentEvent,
  AgentNotFoundError,
  type AgentPortError,
} from '@agentport/core';

/** The compat surface's runner, over the agents the gateway serves as they change. */
export interface GatewayRunner {
  /** Runs the agents last given to {@link GatewayRunner.serve}. */
  readonly runner: Runner;
  /** Serves these agents from now on (compat's definitions are computed once per runner). */
  serve(agents: readonly Agent[]): void;
}

/** A runner of no agents (createRunner needs one): every name is unknown. */
const NO_AGENTS: Runner = {
  run: ((request: RunRequest) => {
    const error = new AgentNotFoundError(String(request?.agent_name));
    if (request?.stream === true) throw error;
    return Promise.reject(error);
  }) as Runner['run'],
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

  function run(request: StreamingRunRequest, options?: RunOptions): AsyncIterable<AgentEvent>;
  function run(
    request: RunRequest & { stream?: false },
    options?: RunOptions,
  ): Promise<RunResponse>;
  function run(
    request: RunRequest,
    options?: RunOptions,
  ): AsyncIterable<AgentEvent> | Promise<RunResponse>;
  function run(
    request: RunRequest,
    options?: RunOptions,
  ): AsyncIterable<AgentEvent> | Promise<RunResponse> {
    const name = request?.agent_name;
    const refused = typeof name === 'string' ? unavailable(name) : undefined;
    if (refused === undefined) return current.run(request, options);
    // As a compat runner refuses an unknown agent: at once for a stream, else as the promise.
    if (request.stream === true) throw refused;
    return Promise.reject(refused);
  }

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
      current = agents.length === 0 ? NO_AGENTS : createRunner(...agents);
    },
  };
}
