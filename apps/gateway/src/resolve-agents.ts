import { agentNameFromCard, createRemoteAgent } from '@agentport/a2a-http';
import { createRemoteSdkAgent } from '@agentport/a2a-sdk';
import { type Agent, DuplicateAgentError } from '@agentport/core';
import { createBuiltinAgents } from './builtin-agents.ts';
import { ConfigError, type GatewayConfig, type RemoteAgentConfig } from './config.ts';
import { createGateway } from './gateway.ts';
import { describeFailure, type UnavailableRemote } from './remote-retries.ts';

/** The agents a config serves, and which one is the default. */
export interface ResolvedAgents {
  agents: Agent[];
  defaultAgent: string;
  /**
   * The remote agents that could not be reached, with `unreachable: 'defer'` (else none): give
   * them to `createGateway` as `unavailableRemotes`.
   */
  unavailableRemotes: UnavailableRemote[];
}

/** Options of {@link resolveAgents}. */
export interface ResolveAgentsOptions {
  /**
   * What a remote agent whose card cannot be read does: `'fail'` (default) throws a ConfigError
   * naming it; `'defer'` makes it an unavailable remote, retried by the gateway (`agentport
   * serve` defers).
   */
  unreachable?: 'fail' | 'defer';
  /**
   * With `unreachable: 'defer'`: how long to wait for a remote's card before deferring it, in ms
   * (default 5,000), so that a remote that accepts connections but never answers does not hold
   * the start for the card's own 30 s.
   */
  deferAfterMs?: number;
}

/**
 * Connects to a remote agent (reads its card); `signal` aborts the card's reading, and only that.
 * Named `name` when given, else after its card.
 */
async function connect(
  remote: RemoteAgentConfig,
  name: string | undefined,
  signal?: AbortSignal,
): Promise<Agent> {
  const headers: Record<string, string> =
    remote.apiKey === undefined ? {} : { authorization: `Bearer ${remote.apiKey}` };
  const options = { ...(name === undefined ? {} : { name }), headers };
  if (remote.kind !== 'a2a-sdk') {
    return createRemoteAgent({
      baseUrl: remote.url,
      ...options,
      ...(signal === undefined ? {} : { signal }),
      ...(remote.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: remote.idleTimeoutMs }),
    });
  }
  if (signal === undefined) return createRemoteSdkAgent({ url: remote.url, ...options });
  // The SDK's remote takes no signal: its fetch gets one while the card is read.
  let reading: AbortSignal | undefined = signal;
  const fetchAbortable: typeof fetch = (input, init) =>
    reading === undefined
      ? fetch(input, init)
      : fetch(input, {
          ...init,
          signal: init?.signal ? AbortSignal.any([init.signal, reading]) : reading,
        });
  try {
    return await createRemoteSdkAgent({ url: remote.url, ...options, fetch: fetchAbortable });
  } finally {
    reading = undefined;
  }
}

/**
 * The name a remote agent without one is served under while its card cannot be read, from its
 * URL: the path segment before `.well-known`, else the last one (a `.json` file's left out),
 * else the host's first label (`remote-agent` for an IP address); made a valid agent name.
 */
export function nameFromUrl(url: string): string {
  const { hostname, pathname } = new URL(url);
  const segments = pathname.split('/').filter((segment) => segment !== '');
  const wellKnown = segments.indexOf('.well-known');
  if (wellKnown !== -1) segments.length = wellKnown;
  else if (segments.at(-1)?.endsWith('.json')) segments.pop();
  const address = /^[\d.]+$/.test(hostname) || hostname.startsWith('[');
  return agentNameFromCard(segments.at(-1) ?? (address ? '' : (hostname.split('.')[0] ?? '')));
}

/** A remote agent as resolved: its agent, or what serves it while it cannot be reached. */
type Resolved = { agent: Agent } | { unavailable: UnavailableRemote };

async function resolveRemote(
  remote: RemoteAgentConfig,
  index: number,
  options: ResolveAgentsOptions,
): Promise<Resolved> {
  const unreachable = options.unreachable ?? 'fail';
  try {
    const signal =
      unreachable === 'defer' ? AbortSignal.timeout(options.deferAfterMs ?? 5_000) : undefined;
    return { agent: await connect(remote, remote.name, signal) };
  } catch (error) {
    if (unreachable === 'fail') {
      // Not "cannot reach": the remote may answer, with a card that cannot be used.
      throw new ConfigError(
        `remotes.${index}: cannot use ${remote.url}: ${(error as Error).message}`,
      );
    }
    // Named now, for good: its name must not depend on when its card can first be read.
    const name = remote.name ?? nameFromUrl(remote.url);
    return {
      unavailable: {
        name,
        url: remote.url,
        since: new Date(),
        lastError: describeFailure(error),
        nameFromUrl: remote.name === undefined,
        connect: (signal) => connect(remote, name, signal),
      },
    };
  }
}

/**
 * Builds the agent list of a config: the built-ins (unless turned off), the config's own agents,
 * then its remote agents (their cards fetched now: one that cannot be read fails, or with
 * `unreachable: 'defer'` is an unavailable remote); names must be unique.
 */
export async function resolveAgents(
  config: GatewayConfig,
  options: ResolveAgentsOptions = {},
): Promise<ResolvedAgents> {
  const builtins = config.builtins === false ? [] : createBuiltinAgents();
  const remotes = await Promise.all(
    (config.remotes ?? []).map((remote, index) => resolveRemote(remote, index, options)),
  );
  const local = [...builtins, ...(config.agents ?? [])];
  const agents = [...local];
  const unavailableRemotes: UnavailableRemote[] = [];
  for (const remote of remotes) {
    if ('agent' in remote) agents.push(remote.agent);
    else unavailableRemotes.push(remote.unavailable);
  }
  const served = [
    ...local.map((agent) => agent.name),
    ...remotes.map((remote) => ('agent' in remote ? remote.agent : remote.unavailable).name),
  ];
  const names = new Set<string>();
  for (const [index, name] of served.entries()) {
    if (names.has(name)) {
      const duplicate = new DuplicateAgentError(name).message;
      // A remote takes its name from its card (or URL) unless given one: say which, and how.
      throw new ConfigError(
        index < local.length
          ? `agents: ${duplicate}`
          : `remotes.${index - local.length}: ${duplicate} (give the remote a name of its own with 'name')`,
      );
    }
    names.add(name);
  }
  if (served.length === 0)
    throw new ConfigError('agents: no agent to serve (builtins are off and none are configured)');
  const defaultAgent =
    config.defaultAgent ?? (names.has('assistant') ? 'assistant' : (served[0] as string));
  if (!names.has(defaultAgent)) {
    throw new ConfigError(`defaultAgent: no agent named '${defaultAgent}'`);
  }
  // Whatever else makes the agents unservable (an invalid name, a tool whose parameters are not
  // an object, two handoff targets sharing a name) is found by building the gateway once, here,
  // rather than when the server is already listening (its retries stop with it, untried).
  try {
    void createGateway({
      agents,
      defaultAgent,
      publicUrl: 'http://127.0.0.1',
      unavailableRemotes,
    }).shutdown();
  } catch (error) {
    throw new ConfigError(`agents: ${(error as Error).message}`);
  }
  return { agents, defaultAgent, unavailableRemotes };
}
