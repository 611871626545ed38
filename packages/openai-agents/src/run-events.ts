import type { AgentProgressEvent } from '@agentport/core';
import type {
  RunItemStreamEvent,
  RunStreamEvent,
  RunToolCallItem,
  RunToolCallOutputItem,
} from '@openai/agents';
import { parseArguments } from './approvals.ts';
import type { AgentNamer } from './sdk-agent.ts';

/** The id of a tool call or output: the model's call id, else the item's id, else its name. */
function idOf(raw: { callId?: unknown; id?: unknown }, name: string): string {
  if (typeof raw.callId === 'string') return raw.callId;
  return typeof raw.id === 'string' ? raw.id : name;
}

function toolCallEvent(item: RunToolCallItem): AgentProgressEvent {
  const raw = item.rawItem as {
    callId?: unknown;
    id?: unknown;
    arguments?: unknown;
    action?: unknown;
  };
  const name = item.toolName ?? item.rawItem.type;
  const input =
    typeof raw.arguments === 'string'
      ? parseArguments(raw.arguments)
      : (raw.arguments ?? raw.action ?? {});
  return { type: 'tool-call', id: idOf(raw, name), name, input };
}

function toolResultEvent(item: RunToolCallOutputItem): AgentProgressEvent {
  const raw = item.rawItem as { callId?: unknown; id?: unknown; name?: unknown };
  const name = typeof raw.name === 'string' ? raw.name : item.rawItem.type;
  return { type: 'tool-result', id: idOf(raw, name), name, output: item.output };
}

function itemEvent(event: RunItemStreamEvent, nameOf: AgentNamer): AgentProgressEvent | undefined {
  const { item } = event;
  switch (item.type) {
    case 'tool_call_item':
      return toolCallEvent(item);
    case 'tool_call_output_item':
      return toolResultEvent(item);
    case 'handoff_output_item':
      return { type: 'handoff', from: nameOf(item.sourceAgent), to: nameOf(item.targetAgent) };
    default:
      return undefined;
  }
}

/**
 * One SDK stream event as our progress event; undefined for those we drop (the model's other raw
 * events, messages whose text came as deltas, reasoning, handoff calls, approvals, agent updates).
 */
export function toAgentEvent(
  event: RunStreamEvent,
  nameOf: AgentNamer,
): AgentProgressEvent | undefined {
  if (event.type === 'raw_model_stream_event') {
    return event.data.type === 'output_text_delta'
      ? { type: 'text-delta', delta: event.data.delta }
      : undefined;
  }
  if (event.type === 'run_item_stream_event') return itemEvent(event, nameOf);
  return undefined;
}
