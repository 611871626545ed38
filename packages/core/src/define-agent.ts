import { abortableReader } from './abortable.ts';
import type { Agent, AgentRunOptions } from './agent.ts';
import type { AgentEvent, DoneEvent, ErrorEvent } from './agent-event.ts';
import { assertAgentName } from './agent-name.ts';
import { errorFromEvent, outputOf, rememberFailure } from './agent-output.ts';
import { AgentFailureError } from './errors/agent-failure-error.ts';
import { AgentNotFoundError } from './errors/agent-not-found-error.ts';
import { AgentPortError } from './errors/agentport-error.ts';
import { CancellationError } from './errors/cancellation-error.ts';
import { InvalidInputError } from './errors/invalid-input-error.ts';
import type { Tool } from './tool.ts';

/** The events a run function yields: everything but the terminal `done` and `error`. */
export type AgentProgressEvent = Exclude<AgentEvent, DoneEvent | ErrorEvent>;

/** What a run function gets besides its input. */
export interface AgentRunContext {
  /** The agent being run. */
  readonly agent: Agent;
  /** Aborted when the caller goes away or cancels; never undefined. */
  readonly signal: AbortSignal;
  /** The caller's metadata (empty when none was given). */
  readonly metadata: Record<string, unknown>;
  /** Calls one of the agent's tools (by value or name), yielding `tool-call` then `tool-result`. */
  callTool<TOutput>(
    tool: Tool<TOutput> | string,
    input: unknown,
  ): AsyncGenerator<AgentProgressEvent, TOutput>;
  /** Hands over to another agent, yielding `handoff` and its events; returns its final output. */
  handoff(target: Agent | string, input: string): AsyncGenerator<AgentProgressEvent, string>;
}

/** The one function an agent is built from: yields progress events, returns the final output. */
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
  /** Yields progress events; a returned string is the output, else its text deltas joined. */
  run: AgentRunFunction;
}

const neverAborted = new AbortController().signal;

function findByName<T extends { name: string }>(
  items: readonly T[],
  target: T | string,
  kind: string,
): T {
  if (typeof target !== 'string') return target;
  const found = items.find((item) => item.name === target);
  if (found === undefined) {
    throw kind === 'agent'
      ? new AgentNotFoundError(target)
      : new InvalidInputError(`Unknown tool '${target}'`, { field: 'tool' });
  }
  return found;
}

function failureOf(error: unknown, agentName: string, signal: AbortSignal): AgentPortError {
  if (signal.aborted) return new CancellationError(undefined, { cause: error });
  if (AgentPortError.isInstance(error)) return error;
  return new AgentFailureError({ agentName, cause: error });
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
    tools,
    handoffs,
    invoke: (input, options) => outputOf(agent.stream(input, options), name),
    stream: (input, options) => streamRun(input, options ?? {}),
  };

  function createContext(signal: AbortSignal, metadata: Record<string, unknown>): AgentRunContext {
    return {
      agent,
      signal,
      metadata,
      async *callTool<TOutput>(
        target: Tool<TOutput> | string,
        input: unknown,
      ): AsyncGenerator<AgentProgressEvent, TOutput> {
        const tool = findByName<Tool<TOutput>>(tools as Tool<TOutput>[], target, 'tool');
        const id = `call_${globalThis.crypto.randomUUID()}`;
        yield { type: 'tool-call', id, name: tool.name, input };
        const output = await tool.execute(input, { signal, toolCallId: id });
        yield { type: 'tool-result', id, name: tool.name, output };
        return output;
      },
      async *handoff(target, input) {
        const next = findByName(handoffs, target, 'agent');
        yield { type: 'handoff', from: name, to: next.name };
        return yield* forward(next.stream(input, { signal, metadata }), next.name);
      },
    };
  }

  async function* streamRun(input: string, options: AgentRunOptions): AsyncGenerator<AgentEvent> {
    const signal = options.signal ?? neverAborted;
    const iterator = run(input, createContext(signal, options.metadata ?? {}));
    const reader = abortableReader(iterator, signal);
    let text = '';
    let pending = false;
    try {
      while (true) {
        pending = true;
        const step = await reader.next();
        pending = false;
        if (step.done) {
          yield { type: 'done', output: typeof step.value === 'string' ? step.value : text };
          return;
        }
        if (step.value.type === 'text-delta') text += step.value.delta;
        yield step.value;
      }
    } catch (error) {
      const failure = failureOf(error, name, signal);
      yield rememberFailure(
        { type: 'error', code: failure.code, message: failure.message },
        failure,
      );
    } finally {
      reader.dispose();
      // Close the run (its finally blocks run); never wait on a run that ignores its signal.
      const closing = iterator.return(undefined).catch(() => undefined);
      if (!pending) await closing;
    }
  }

  return agent;
}

async function* forward(
  events: AsyncIterable<AgentEvent>,
  agentName: string,
): AsyncGenerator<AgentProgressEvent, string> {
  for await (const event of events) {
    if (event.type === 'done') return event.output;
    if (event.type === 'error') throw errorFromEvent(event, agentName);
    yield event;
  }
  throw new AgentFailureError({
    agentName,
    message: `Agent '${agentName}' ended without a result`,
  });
}
