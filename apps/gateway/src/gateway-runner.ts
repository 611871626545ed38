import {
  createRunner,
  type Runner,
  type RunOptions,
  type RunRequest,
  type RunResponse,
} from '@agentport/compat';
import {
  type Agent,
  AgentNotFoundError,
  type AgentPortError,
  type ConversationStore,
  type TaskStore,
} from '@agentport/core';

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

/** The stores every compat runner the gateway makes shares with the other surfaces. */
export interface GatewayRunnerStores {
  store: TaskStore;
  conversations: ConversationStore;
}

/**
 * A compat runner that answers a name `unavailable` refuses (a remote agent not available yet)
 * with that error, and runs everything else on a compat runner of the agents served now, over
 * the gateway's stores (a runner made again keeps every paused run and conversation).
 */
export function createGatewayRunner(
  unavailable: (name: string) => AgentPortError | undefined,
  stores: GatewayRunnerStores,
): GatewayRunner {
  let current = NO_AGENTS;
  const refused = (name: string) => {
    const error = unavailable(name);
    if (error !== undefined) throw error;
  };

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
        refused(name);
        return current.getAgentDef(name);
      },
      taskRunnerOf(name) {
        refused(name);
        if (current.taskRunnerOf === undefined) throw new AgentNotFoundError(name);
        return current.taskRunnerOf(name);
      },
      store: stores.store,
      conversations: stores.conversations,
    },
    serve(agents) {
      current = agents.length === 0 ? NO_AGENTS : createRunner({ agents, ...stores });
    },
  };
}
