import type { Agent } from './agent.ts';
import type { AgentEvent, DoneEvent, ErrorEvent, InputRequiredEvent } from './agent-event.ts';
import { assertAgentName } from './agent-name.ts';
import { outputOf } from './agent-output.ts';
import { InvalidInputError } from './errors/invalid-input-error.ts';
import type { Message } from './message.ts';
import type { Definition } from './run-context.ts';
import { RunStream } from './run-stream.ts';
import type { Tool } from './tool.ts';

/** The events a run function yields: everything but the terminal `done`, `error` and `input-required`. */
export type AgentProgressEvent = Exclude<AgentEvent, DoneEvent | ErrorEvent | InputRequiredEvent>;

/** What a run function gets besides its input. */
export interface AgentRunContext {
  /** The agent being run. */
  readonly agent: Agent;
  /** Aborted when the caller goes away or cancels; never undefined. */
  readonly signal: AbortSignal;
  /** The caller's metadata (empty when none was given). */
  readonly metadata: Record<string, unknown>;
  /** The new message, whose text is the run's `input` (a message of that text when given a string). */
  readonly message: Message;
  /** The conversation's earlier messages, oldest first (empty outside a conversation). */
  readonly history: readonly Message[];
  /** The conversation the run belongs to, if any. */
  readonly contextId: string | undefined;
  /** The task the run is for, if any. */
  readonly taskId: string | undefined;
  /** The `state` of the `inputRequired(...)` this run answers; undefined on a first run. */
  readonly resumeState: unknown;
  /** Calls one of the agent's tools (by value or name), yielding `tool-call` then `tool-result`. */
  callTool<TOutput>(
    tool: Tool<TOutput> | string,
    input: unknown,
  ): AsyncGenerator<AgentProgressEvent, TOutput>;
  /** Hands over to another agent, yielding `handoff` and its events; returns its final output. */
  handoff(target: Agent | string, input: string): AsyncGenerator<AgentProgressEvent, string>;
}

/**
 * The one function an agent is built from: yields progress events, returns the final output (or
 * `inputRequired(...)` to pause for the caller).
 */
export type AgentRunFunction = (
  input: string,
  context: AgentRunContext,
) => AsyncGenerator<AgentProgressEvent, unknown, undefined>;

/** What {@link defineAgent} takes. */
export interface AgentDefinition {
  name: string;
  description?: string;
  instructions?: string;
  model?: string;
  tools?: readonly Tool[];
  handoffs?: readonly Agent[];
  /** The media types of the parts it takes, for cards (see `Agent.inputModes`). */
  inputModes?: readonly string[];
  /** The media types of the parts it answers with, for cards. */
  outputModes?: readonly string[];
  /** Whether a run lost with its process may be made again (see `Agent.retrySafe`). */
  retrySafe?: boolean;
  /**
   * Yields progress events; a returned string is the output, a returned `inputRequired(...)`
   * pauses the run for its caller, anything else makes the output its text deltas joined.
   */
  run: AgentRunFunction;
}

/**
 * Builds an agent from one async-generator `run`; `invoke` is derived from `stream`.
 *
 * @example
 * const shout = defineAgent({
 *   name: 'shout',
 *   description: 'Answers in capitals',
 *   async *run(input) {
 *     yield { type: 'text-delta', delta: input.toUpperCase() };
 *   },
 * });
 * await shout.invoke('hi'); // 'HI'
 */
export function defineAgent(definition: AgentDefinition): Agent {
  const { name, run } = definition;
  assertAgentName(name);
  const tools = [...(definition.tools ?? [])];
  const handoffs = [...(definition.handoffs ?? [])];
  const toolNames = new Set<string>();
  for (const tool of tools) {
    if (toolNames.has(tool.name)) {
      throw new InvalidInputError(`Agent '${name}' has two tools named '${tool.name}'`, {
        field: 'tools',
      });
    }
    toolNames.add(tool.name);
  }

  const agent: Agent = {
    name,
    ...(definition.description === undefined ? {} : { description: definition.description }),
    ...(definition.instructions === undefined ? {} : { instructions: definition.instructions }),
    ...(definition.model === undefined ? {} : { model: definition.model }),
    ...(definition.inputModes === undefined ? {} : { inputModes: [...definition.inputModes] }),
    ...(definition.outputModes === undefined ? {} : { outputModes: [...definition.outputModes] }),
    ...(definition.retrySafe === true && { retrySafe: true }),
    tools,
    handoffs,
    invoke: (input, options) => outputOf(agent.stream(input, options), name),
    stream: (input, options) => new RunStream(shared, input, options ?? {}),
  };
  const shared: Definition = { agent, name, run, tools, handoffs };
  return agent;
}
