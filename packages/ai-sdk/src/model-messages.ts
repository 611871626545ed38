import type { Message, Part } from '@agentport/core';
import type { AssistantContent, FilePart, ModelMessage, TextPart, UserContent } from 'ai';

/** One of our parts as AI SDK content: text as text, a file as a file, data as its JSON in text. */
function contentPart(part: Part): TextPart | FilePart {
  if (part.kind === 'text') return { type: 'text', text: part.text };
  // Models take no structured data part of their own: the JSON text is what a model reads best.
  if (part.kind === 'data') return { type: 'text', text: JSON.stringify(part.data) };
  const data = part.url !== undefined ? new URL(part.url) : part.bytes;
  return {
    type: 'file',
    data,
    mediaType: part.mediaType,
    ...(part.name !== undefined && { filename: part.name }),
  };
}

/** One of our messages as an AI SDK model message: the caller's as `user`, the agent's as `assistant`. */
export function toModelMessage(message: Message): ModelMessage {
  const content = message.parts.map(contentPart);
  if (message.role === 'agent') {
    return { role: 'assistant', content: content as AssistantContent };
  }
  return { role: 'user', content: content as UserContent };
}

/** The conversation so far and the new message as the AI SDK's `messages`, oldest first. */
export function toModelMessages(history: readonly Message[], message: Message): ModelMessage[] {
  const messages = history.map(toModelMessage);
  messages.push(toModelMessage(message));
  return messages;
}
