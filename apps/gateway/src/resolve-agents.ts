import { createRemoteAgent } from '@agentport/a2a-http';
import { createRemoteSdkAgent } from '@agentport/a2a-sdk';
import { type Agent, DuplicateAgentError } from '@agentport/core';
import { createBuiltinAgents } from './builtin-agents.ts';
import { ConfigError, type GatewayConfig, type RemoteAgentConfig } from './config.ts';
import { createGateway } from './gateway.ts';

/** The agents a config serves, and which one is the default. */
export interface ResolvedAgents {
  agents: Agent[];
  defaultAgent: string;
}

async function connectRemote(remote: RemoteAgentConfig, index: number): Promise<Agent> {
  const headers: Record<string, string> =
    remote.apiKey === undefined ? {} : { authorization: `Bearer ${remote.apiKey}` };
  const options = {
    ...(remote.name === undefined ? {} : { name: remote.name }),
    headers,
  };
  try {
    return remote.kind === 'a2a-sdk'
      ? await createRemoteSdkAgent(remote.url, options)
      : await createRemoteAgent(remote.url, {
          ...options,
          ...(remote.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: remote.idleTimeoutMs }),
        });
  } catch (error) {
    // Not "cannot reach": the remote may answer, with a card that cannot be used.
    throw new ConfigError(
      `remotes.${index}: cannot use ${remote.url}: ${(error as Error).message}`,
    );
  }
}

/**
 * Builds the agent list of a config: the built-ins (unless turned off), the config's own agents,
 * then its remote agents (their cards fetched now); names must be unique.
 */
export async function resolveAgents(config: GatewayConfig): Promise<ResolvedAgents> {
  const builtins = config.builtins === false ? [] : createBuiltinAgents();
  const remotes = await Promise.all((config.remotes ?? []).map(connectRemote));
  const local = [...builtins, ...(config.agents ?? [])];
  const agents = [...local, ...remotes];
  const names = new Set<string>();
  for (const [index, agent] of agents.entries()) {
    if (names.has(agent.name)) {
      const duplicate = new DuplicateAgentError(agent.name).message;
      // A remote takes its name from its card unless given one: say which remote, and how.
      throw new ConfigError(
        index < local.length
          ? `agents: ${duplicate}`
          : `remotes.${index - local.length}: ${duplicate} (give the remote a name of its own with 'name')`,
      );
    }
    names.add(agent.name);
  }
  if (agents.length === 0)
    throw new ConfigError('agents: no agent to serve (builtins are off and none are configured)');
  const defaultAgent =
    config.defaultAgent ?? (names.has('assistant') ? 'assistant' : (agents[0] as Agent).name);
  if (!names.has(defaultAgent)) {
    throw new ConfigError(`defaultAgent: no agent named '${defaultAgent}'`);
  }
  // Whatever else makes the agents unservable (an invalid name, a tool whose parameters are not
  // an object, two handoff targets sharing a name) is found by building the gateway once, here,
  // rather than when the server is already listening.
  try {
    void createGateway({ agents, defaultAgent, publicUrl: 'http://127.0.0.1' }).shutdown();
  } catch (error) {
    throw new ConfigError(`agents: ${(error as Error).message}`);
  }
  return { agents, defaultAgent };
}
