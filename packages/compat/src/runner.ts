import {
  type Agent,
  type AgentEvent,
  type AgentInput,
  AgentNotFoundError,
  type AgentRunOptions,
  type ConversationStore,
  createMemoryConversationStore,
  createMemoryTaskStore,
  DuplicateAgentError,
  InvalidInputError,
  type TaskRunner,
  type TaskStore,
} from '@agentport/core';
import { ConversationRuns } from './conversation-runs.ts';
import {
  type AgentDef,
  type ParsedRunRequest,
  type RunRequest,
  type RunResponse,
  runRequestSchema,
} from './definitions.ts';
import { fromAgent } from './from-agent.ts';
import { runEvents } from './run-events.ts';

/**
 * Options of one run. A streamed run also takes what a stream run's task hands its agent
 * (`history`, `contextId`, `taskId`, `resumeState`, `metadata`), passed on to the agent as they
 * are; a run that is not streamed takes only `signal` (its conversation is `conversation_id`).
 */
export interface RunOptions extends Omit<AgentRunOptions, 'signal'> {
  /** Aborting it aborts the agent; the run then fails with a CancellationError. */
  signal?: AbortSignal;
}

/** Options of {@link createRunner}. */
export interface RunnerOptions {
  /** The agents to run by name (at least one, with distinct names); their handoff targets are added. */
  agents: readonly Agent[];
  /**
   * Where the tasks of runs that paused live (default a new in-memory store): share it with the
   * other surfaces, and keep it when the Runner is made again, so a paused run can be answered.
   */
  store?: TaskStore;
  /** Where conversations live (default a new in-memory store); share and keep it as `store`. */
  conversations?: ConversationStore;
}

/** A run request that asks for the run's events. */
export type StreamingRunRequest = RunRequest & { stream: true };

/** A registry of agents that dispatches runs by agent name. */
export interface Runner {
  /** Streams the run's events as they happen; throws at once for a bad request or unknown agent. */
  run(request: StreamingRunRequest, options?: RunOptions): AsyncIterable<AgentEvent>;
  /** Runs the agent to completion and resolves with its RunResponse. */
  run(request: RunRequest & { stream?: false }, options?: RunOptions): Promise<RunResponse>;
  /** Either of the above, chosen by `request.stream`. */
  run(request: RunRequest, options?: RunOptions): AsyncIterable<AgentEvent> | Promise<RunResponse>;
  /** The AgentDef of every agent the runner knows, sorted by name. */
  listAgents(): AgentDef[];
  /** The AgentDef of one agent; throws an AgentNotFoundError naming it when unknown. */
  getAgentDef(name: string): AgentDef;
  /**
   * The core TaskRunner of an agent's conversation turns (AgentNotFoundError when unknown): a
   * streamed run answers a paused task through it. Optional: a Runner of another making (a
   * wrapper) may leave it out; its streams then never answer a pause.
   */
  taskRunnerOf?(name: string): TaskRunner;
  /** Where the tasks of its runs that paused live (`createRunner`'s `store`). */
  readonly store?: TaskStore;
  /** Where its conversations live (`createRunner`'s `conversations`). */
  readonly conversations?: ConversationStore;
}

function byName(left: Agent, right: Agent): number {
  if (left.name === right.name) return 0;
  return left.name < right.name ? -1 : 1;
}

function registerAgents(agents: readonly Agent[]): Map<string, Agent> {
  if (!Array.isArray(agents)) {
    throw new InvalidInputError('createRunner takes { agents }, an array of agents', {
      field: 'agents',
    });
  }
  if (agents.length === 0) {
    throw new InvalidInputError('createRunner needs at least one agent', { field: 'agents' });
  }
  const registry = new Map<string, Agent>();
  for (const agent of agents) {
    if (registry.has(agent.name)) throw new DuplicateAgentError(agent.name);
    registry.set(agent.name, agent);
  }
  const registered = new Set(registry.keys());
  const queue = [...agents];
  for (let agent = queue.shift(); agent !== undefined; agent = queue.shift()) {
    for (const target of agent.handoffs) {
      const known = registry.get(target.name);
      if (known === undefined) {
        registry.set(target.name, target);
        queue.push(target);
      } else if (known !== target && !registered.has(target.name)) {
        // Two different handoff targets share a name and nothing registered settles which one.
        throw new DuplicateAgentError(target.name);
      }
    }
  }
  return registry;
}

function parseRequest(request: unknown): ParsedRunRequest {
  const result = runRequestSchema.safeParse(request);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') ?? '';
  throw new InvalidInputError(`${field || 'request'}: ${issue?.message ?? 'invalid'}`, { field });
}

/**
 * Creates a Runner over one or more agents; their handoff targets, however deep, are reachable
 * and listed too. Two registered agents with the same name are a DuplicateAgentError.
 *
 * @example
 * const runner = createRunner({ agents: [createAssistantAgent()] });
 * const response = await runner.run({ agent_name: 'assistant', input: 'what is 2 + 3' });
 * // { output: '2 + 3 = 5', agent: 'assistant', tool_calls: [{ name: 'calculator', ... }] }
 */
export function createRunner(options: RunnerOptions): Runner {
  const registry = registerAgents(options?.agents);
  const conversations = new ConversationRuns(
    options.store ?? createMemoryTaskStore(),
    options.conversations ?? createMemoryConversationStore(),
  );
  const definitions = new Map(
    [...registry.values()].sort(byName).map((agent) => [agent.name, fromAgent(agent)]),
  );

  function find(name: string): Agent {
    const agent = registry.get(name);
    if (agent === undefined) throw new AgentNotFoundError(name);
    return agent;
  }

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
    options: RunOptions = {},
  ): AsyncIterable<AgentEvent> | Promise<RunResponse> {
    if (request?.stream === true) {
      const { agent_name, input } = parseRequest(request);
      return streamEvents(find(agent_name), input, options);
    }
    try {
      const { agent_name, input, conversation_id } = parseRequest(request);
      return conversations.run(find(agent_name), input, conversation_id, options.signal);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  return {
    run,
    listAgents: () => structuredClone([...definitions.values()]),
    getAgentDef: (name) => structuredClone(fromAgentName(definitions, name)),
    taskRunnerOf: (name) => conversations.runnerOf(find(name)),
    store: conversations.store,
    conversations: conversations.conversations,
  };
}

/**
 * A streamed run's events: its new message, with the history its options give (a stream run's
 * conversation), else the input items before it.
 */
function streamEvents(
  agent: Agent,
  input: ParsedRunRequest['input'],
  options: RunOptions,
): AsyncIterable<AgentEvent> {
  if (typeof input === 'string') return runEvents(agent, input, options);
  const message = input[input.length - 1] as AgentInput;
  if (input.length === 1 || options.history !== undefined) {
    return runEvents(agent, message, options);
  }
  return runEvents(agent, message, { ...options, history: input.slice(0, -1) });
}

function fromAgentName(definitions: Map<string, AgentDef>, name: string): AgentDef {
  const definition = definitions.get(name);
  if (definition === undefined) throw new AgentNotFoundError(name);
  return definition;
}
