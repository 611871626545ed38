import type { AgentProgressEvent } from '@agentport/core';
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { INTERRUPT } from '@langchain/langgraph';
import type { PendingInterrupt } from './interrupts.ts';

/** What one run has reported already, so that a message a node hands on again is not told twice. */
export interface StreamMemory {
  /** The ids of the tool calls reported, with their tool's name. */
  readonly toolCalls: Map<string, string>;
  /** The ids of the tool calls whose result was reported. */
  readonly toolResults: Set<string>;
}

/** A fresh memory for one run. */
export function createStreamMemory(): StreamMemory {
  return { toolCalls: new Map(), toolResults: new Set() };
}

/** The text of a `messages` chunk when it is (a chunk of) an AI message; '' for anything else. */
export function textDeltaOf(chunk: unknown): string {
  const [message] = Array.isArray(chunk) ? chunk : [];
  return AIMessage.isInstance(message) ? message.text : '';
}

/** The messages of one node's update: `{ messages }` with one message or a list, or a list of such. */
function messagesOfUpdate(update: unknown): BaseMessage[] {
  if (Array.isArray(update)) return update.flatMap(messagesOfUpdate);
  if (update === null || typeof update !== 'object' || !('messages' in update)) return [];
  const { messages } = update as { messages: unknown };
  const list = Array.isArray(messages) ? messages : [messages];
  return list.filter(
    (message): message is BaseMessage =>
      AIMessage.isInstance(message) || ToolMessage.isInstance(message),
  );
}

/**
 * A tool's result as the event's output: a content that is a JSON object or array parsed back
 * (ToolNode sends a tool's object output as JSON text), any other content as it is.
 */
function toolOutputOf(message: ToolMessage, name: string): unknown {
  // ToolNode puts the thrown error's message in the content: it may hold what a caller must not see.
  if (message.status === 'error') return { error: `Tool '${name}' failed` };
  const { content } = message;
  if (typeof content !== 'string') return content;
  if (!/^\s*[[{]/.test(content)) return content;
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

/** The tool events of one message of an update: an AI message's calls, or a tool message's result. */
function toolEventsOfMessage(message: BaseMessage, memory: StreamMemory): AgentProgressEvent[] {
  const events: AgentProgressEvent[] = [];
  if (AIMessage.isInstance(message)) {
    for (const call of message.tool_calls ?? []) {
      const id = call.id ?? `${call.name}-${memory.toolCalls.size}`;
      if (memory.toolCalls.has(id)) continue;
      memory.toolCalls.set(id, call.name);
      events.push({ type: 'tool-call', id, name: call.name, input: call.args });
    }
    return events;
  }
  if (ToolMessage.isInstance(message) && !memory.toolResults.has(message.tool_call_id)) {
    const id = message.tool_call_id;
    const name = message.name ?? memory.toolCalls.get(id) ?? '';
    memory.toolResults.add(id);
    events.push({ type: 'tool-result', id, name, output: toolOutputOf(message, name) });
  }
  return events;
}

/** The tool events of one `updates` chunk (`{ [node]: update }`), in the order of its messages. */
export function toolEventsOf(chunk: unknown, memory: StreamMemory): AgentProgressEvent[] {
  if (chunk === null || typeof chunk !== 'object') return [];
  return Object.entries(chunk)
    .filter(([node]) => node !== INTERRUPT)
    .flatMap(([, update]) => messagesOfUpdate(update))
    .flatMap((message) => toolEventsOfMessage(message, memory));
}

/** The interrupts of one `updates` chunk (its `__interrupt__` entry); empty when it has none. */
export function interruptsOf(chunk: unknown): PendingInterrupt[] {
  if (chunk === null || typeof chunk !== 'object' || !(INTERRUPT in chunk)) return [];
  const interrupts = (chunk as Record<string, unknown>)[INTERRUPT];
  return Array.isArray(interrupts) ? (interrupts as PendingInterrupt[]) : [];
}
