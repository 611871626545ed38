import type { Agent, AgentInput, AgentRunOptions } from './agent.ts';
import type { AgentEvent } from './agent-event.ts';
import { endedWithoutResult, errorFromEvent } from './agent-output.ts';
import { callToolOf, findByName } from './call-tool.ts';
import type { AgentProgressEvent, AgentRunContext, AgentRunFunction } from './define-agent.ts';
import { AgentFailureError } from './errors/agent-failure-error.ts';
import { type Message, userMessage } from './message.ts';
import type { Tool } from './tool.ts';

// The context of one run of a `defineAgent` agent, and its handoffs (see run-stream.ts).

/**
 * How many handoffs deep one run may go. A run that hands off once more fails with
 * `agent_failure`: two agents that keep handing the conversation to each other would otherwise
 * nest until the stack overflows (about a second of CPU and a thousand events).
 */
export const MAX_HANDOFF_DEPTH = 32;

/**
 * How many handoffs deep a run is, carried in the options its parent's handoff gives the target's
 * `stream` (a symbol: no caller sees it, and spreads and wrappers that pass options on keep it).
 */
const HANDOFF_DEPTH = Symbol('agentport.handoffDepth');

/** The options a handoff gives its target. */
type HandoffRunOptions = AgentRunOptions & { [HANDOFF_DEPTH]?: number };

/** How many handoffs deep a run with these options is (0 for a run its caller started). */
export function handoffDepthOf(options: AgentRunOptions): number {
  return (options as HandoffRunOptions)[HANDOFF_DEPTH] ?? 0;
}

/** What every run of one defined agent shares. */
export interface Definition {
  readonly agent: Agent;
  readonly name: string;
  readonly run: AgentRunFunction;
  readonly tools: readonly Tool[];
  readonly handoffs: readonly Agent[];
}

async function* handoffOf(
  definition: Definition,
  context: RunContext,
  target: Agent | string,
  input: string,
): AsyncGenerator<AgentProgressEvent, string> {
  const next = findByName(definition.handoffs, target, 'handoff target', definition.name);
  if (context.depth >= MAX_HANDOFF_DEPTH) {
    throw new AgentFailureError({
      agentName: definition.name,
      message: `Agent '${definition.name}' cannot hand off to '${next.name}': the run is ${MAX_HANDOFF_DEPTH} handoffs deep already (a handoff loop?)`,
    });
  }
  yield { type: 'handoff', from: definition.name, to: next.name };
  // The target joins the conversation: its history and ids, not the state this agent resumes.
  const { history, contextId, taskId } = context.options;
  const options: HandoffRunOptions = {
    signal: context.signal,
    metadata: context.metadata,
    ...(history === undefined ? {} : { history }),
    ...(contextId === undefined ? {} : { contextId }),
    ...(taskId === undefined ? {} : { taskId }),
    [HANDOFF_DEPTH]: context.depth + 1,
  };
  return yield* forward(next.stream(input, options), next.name);
}

const NO_HISTORY: readonly Message[] = Object.freeze([]);

/**
 * The context of one run. `metadata`, `message`, `callTool` and `handoff` are made when first read
 * (they can still be destructured), so a run that uses none of them keeps one small object.
 */
export class RunContext implements AgentRunContext {
  readonly signal: AbortSignal;
  /** How many handoffs deep the run is (0 for a run its caller started). */
  readonly depth: number;
  /** The options the run was started with. */
  readonly options: AgentRunOptions;
  readonly #definition: Definition;
  #metadata: Record<string, unknown> | undefined;
  #input: AgentInput;

  constructor(
    definition: Definition,
    signal: AbortSignal,
    input: AgentInput,
    options: AgentRunOptions,
    depth: number,
  ) {
    this.#definition = definition;
    this.signal = signal;
    this.#input = input;
    this.options = options;
    this.#metadata = options.metadata;
    this.depth = depth;
  }

  get agent(): Agent {
    return this.#definition.agent;
  }

  get message(): Message {
    if (typeof this.#input === 'string') this.#input = userMessage(this.#input);
    return this.#input;
  }

  get history(): readonly Message[] {
    return this.options.history ?? NO_HISTORY;
  }

  get contextId(): string | undefined {
    return this.options.contextId;
  }

  get taskId(): string | undefined {
    return this.options.taskId;
  }

  get resumeState(): unknown {
    return this.options.resumeState;
  }

  get metadata(): Record<string, unknown> {
    this.#metadata ??= {};
    return this.#metadata;
  }

  get callTool(): AgentRunContext['callTool'] {
    return (target, input) => callToolOf(this.#definition, this.signal, target, input);
  }

  get handoff(): AgentRunContext['handoff'] {
    return (target, input) => handoffOf(this.#definition, this, target, input);
  }
}

async function* forward(
  events: AsyncIterable<AgentEvent>,
  agentName: string,
): AsyncGenerator<AgentProgressEvent, string> {
  for await (const event of events) {
    if (event.type === 'done') return event.output;
    if (event.type === 'error') throw errorFromEvent(event, agentName);
    if (event.type === 'input-required') {
      // A handoff hands back one answer: a target that pauses has none to give.
      throw new AgentFailureError({
        agentName,
        message: `Agent '${agentName}' asked for input inside a handoff, which cannot pause`,
      });
    }
    yield event;
  }
  throw endedWithoutResult(agentName);
}
