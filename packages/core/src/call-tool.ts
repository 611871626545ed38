import type { AgentProgressEvent } from './define-agent.ts';
import type { Definition } from './run-context.ts';
import type { Tool } from './tool.ts';

// A `defineAgent` run's tool calls, and the lookup of its tools and handoff targets by name.

/**
 * One of an agent's tools or handoff targets, by value or name. An unknown name is a mistake in
 * the agent's code, not in the caller's request: a plain TypeError, which fails the run as
 * `agent_failure` (500, logged) rather than a 400 or 404 the caller could do nothing about.
 */
export function findByName<T extends { name: string }>(
  items: readonly T[],
  target: T | string,
  kind: 'tool' | 'handoff target',
  owner: string,
): T {
  if (typeof target !== 'string') return target;
  const found = items.find((item) => item.name === target);
  if (found === undefined) throw new TypeError(`Agent '${owner}' has no ${kind} '${target}'`);
  return found;
}

/**
 * Throws a TypeError naming the tool when JSON cannot hold a tool call's input or output (a
 * cycle, a BigInt): every surface sends them as JSON, and the run then fails as an
 * `agent_failure` with the reason in its cause, the same way on each of them.
 */
function assertJson(value: unknown, toolName: string, what: 'input' | 'output'): void {
  try {
    JSON.stringify(value);
  } catch (error) {
    // The reason in the message, not as a cause too: a log would print it twice.
    const reason = error instanceof Error ? error.message : String(error);
    throw new TypeError(`Tool '${toolName}' ${what} cannot be sent as JSON: ${reason}`);
  }
}

export async function* callToolOf<TOutput>(
  definition: Definition,
  signal: AbortSignal,
  target: Tool<TOutput> | string,
  input: unknown,
): AsyncGenerator<AgentProgressEvent, TOutput> {
  const tool = findByName<Tool<TOutput>>(
    definition.tools as Tool<TOutput>[],
    target,
    'tool',
    definition.name,
  );
  const id = `call_${globalThis.crypto.randomUUID()}`;
  assertJson(input, tool.name, 'input');
  yield { type: 'tool-call', id, name: tool.name, input };
  const output = await tool.execute(input, { signal, toolCallId: id });
  assertJson(output, tool.name, 'output');
  yield { type: 'tool-result', id, name: tool.name, output };
  return output;
}
