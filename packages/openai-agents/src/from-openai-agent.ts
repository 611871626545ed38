import {
  type Agent,
  type AgentRunContext,
  defineAgent,
  InvalidInputError,
  isValidAgentName,
} from '@agentport/core';
import {
  type AgentOutputType,
  Handoff,
  type Agent as OpenAIAgent,
  type Runner,
} from '@openai/agents';
import { createRun } from './run-agent.ts';
import type { SdkAgent } from './sdk-agent.ts';
import { toolsOf } from './tools.ts';

/** What {@link fromOpenAIAgent} takes besides the agent. */
export interface FromOpenAIAgentOptions<TContext = unknown> {
  /** The AgentPort name (default: the SDK agent's `name`, lower-cased, other characters made `-`). */
  name?: string;
  /** What the agent does, for cards and listings (default: the SDK agent's `handoffDescription`). */
  description?: string;
  /** Its instructions, as listings show them (none by default: the SDK agent keeps its own). */
  instructions?: string;
  /** Its model's name, as listings show it (default: the SDK agent's `model`, when a name). */
  model?: string;
  /** The SDK `Runner` every run (and every handoff target's) goes through (default: the SDK's `run`). */
  runner?: Runner;
  /** The SDK's `maxTurns` for each run (default: the SDK's own). */
  maxTurns?: number;
  /**
   * Makes the SDK run context's value (what tools read as `runContext.context`) for each run, from
   * the run's context (its metadata, its ids); default: the SDK's own empty one.
   */
  context?: (context: AgentRunContext) => TContext;
}

/** The SDK agents met so far while adapting one agent and its handoffs, and what each became. */
interface Adapted {
  readonly agents: Map<SdkAgent, Agent>;
  readonly names: Map<SdkAgent, string>;
  readonly owners: Map<string, SdkAgent>;
}

/** An SDK agent's name as an AgentPort name: lower-cased, each run of other characters a `-`. */
export function agentNameOf(sdkName: string): string {
  const name = sdkName
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  if (!isValidAgentName(name)) {
    throw new InvalidInputError(
      `fromOpenAIAgent cannot make an agent name of '${sdkName}': pass options.name, or give the SDK agent a name with letters or digits`,
      { field: 'name' },
    );
  }
  return name;
}

/** The name an SDK agent gets, claimed for it alone: two agents of one name are ambiguous. */
function claimName(adapted: Adapted, agent: SdkAgent, name: string): void {
  const owner = adapted.owners.get(name);
  if (owner !== undefined && owner !== agent) {
    throw new InvalidInputError(
      `fromOpenAIAgent: the SDK agents '${owner.name}' and '${agent.name}' would both be named '${name}'`,
      { field: 'handoffs' },
    );
  }
  adapted.owners.set(name, agent);
  adapted.names.set(agent, name);
}

function adapt(
  agent: SdkAgent,
  options: FromOpenAIAgentOptions<unknown>,
  adapted: Adapted,
  root: boolean,
): Agent {
  const known = adapted.agents.get(agent);
  if (known !== undefined) return known;
  const name = (root ? options.name : undefined) ?? agentNameOf(agent.name);
  claimName(adapted, agent, name);
  const description = (root ? options.description : undefined) ?? agent.handoffDescription;
  const model = (root ? options.model : undefined) ?? agent.model;
  const instructions = root ? options.instructions : undefined;
  const defined = defineAgent({
    name,
    ...(description !== '' && { description }),
    ...(instructions !== undefined && { instructions }),
    ...(typeof model === 'string' && model !== '' && { model }),
    tools: toolsOf(agent.tools),
    run: createRun({
      name,
      agent,
      nameOf: (other) => adapted.names.get(other) ?? agentNameOf(other.name),
      runner: options.runner,
      maxTurns: options.maxTurns,
      context: options.context,
    }),
  });
  // The SDK's handoffs may lead back here (triage to billing to triage): filled in once registered.
  const handoffs: Agent[] = [];
  const result: Agent = { ...defined, handoffs };
  adapted.agents.set(agent, result);
  for (const target of agent.handoffs) {
    const sdkTarget = (target instanceof Handoff ? target.agent : target) as SdkAgent;
    handoffs.push(adapt(sdkTarget, options, adapted, false));
  }
  return result;
}

/**
 * Serves an OpenAI Agents SDK agent as an AgentPort agent: its function tools listed, its
 * handoffs as agents of their own, each run a streamed SDK run whose events become ours.
 *
 * @example
 * const agent = fromOpenAIAgent(new Agent({ name: 'weather', tools: [weather] }));
 */
export function fromOpenAIAgent<TContext, TOutput extends AgentOutputType>(
  agent: OpenAIAgent<TContext, TOutput>,
  options: FromOpenAIAgentOptions<TContext> = {},
): Agent {
  const adapted: Adapted = { agents: new Map(), names: new Map(), owners: new Map() };
  // One view of every SDK agent whatever its context and output: the adapter reads none of them.
  return adapt(
    agent as unknown as SdkAgent,
    options as FromOpenAIAgentOptions<unknown>,
    adapted,
    true,
  );
}
