import type { DataPart, FilePart, Message, Part } from '@agentport/core';
import type {
  AgentInputItem,
  AssistantMessageItem,
  protocol,
  UserMessageItem,
} from '@openai/agents';

/** A file part as the SDK references it: its URL, else its bytes as a `data:` URL. */
function fileReference(part: FilePart): string {
  return part.url ?? `data:${part.mediaType};base64,${part.bytes}`;
}

/** The JSON of a data part: models take no structured data part of their own, and read JSON best. */
function dataText(part: DataPart): string {
  return JSON.stringify(part.data);
}

/** One of the caller's parts as user content: text, an image, a file, or a data part's JSON. */
function userContent(part: Part): protocol.UserContent {
  if (part.kind === 'text') return { type: 'input_text', text: part.text };
  if (part.kind === 'data') return { type: 'input_text', text: dataText(part) };
  if (part.mediaType.startsWith('image/')) {
    return { type: 'input_image', image: fileReference(part) };
  }
  const file = part.url !== undefined ? { url: part.url } : fileReference(part);
  return { type: 'input_file', file, ...(part.name !== undefined && { filename: part.name }) };
}

/**
 * One of the agent's parts as assistant content: text, a data part's JSON, an image; undefined for
 * another file (an assistant message holds no file of its own).
 */
function assistantContent(part: Part): protocol.AssistantContent | undefined {
  if (part.kind === 'text') return { type: 'output_text', text: part.text };
  if (part.kind === 'data') return { type: 'output_text', text: dataText(part) };
  if (part.mediaType.startsWith('image/')) return { type: 'image', image: fileReference(part) };
  return undefined;
}

/** One of our messages as an SDK input item (the caller's as `user`, the agent's as `assistant`). */
export function toInputItem(message: Message): AgentInputItem | undefined {
  if (message.role === 'user') {
    const item: UserMessageItem = { role: 'user', content: message.parts.map(userContent) };
    return item;
  }
  const content = message.parts
    .map(assistantContent)
    .filter((entry): entry is protocol.AssistantContent => entry !== undefined);
  if (content.length === 0) return undefined;
  const item: AssistantMessageItem = { role: 'assistant', status: 'completed', content };
  return item;
}

/** The conversation so far and the new message as the run's input items, oldest first. */
export function toInputItems(history: readonly Message[], message: Message): AgentInputItem[] {
  const items: AgentInputItem[] = [];
  for (const entry of [...history, message]) {
    const item = toInputItem(entry);
    if (item !== undefined) items.push(item);
  }
  return items;
}
