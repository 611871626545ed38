import { type Message, type Part, textOf } from '@agentport/core';
import {
  AIMessage,
  type BaseMessage,
  type ContentBlock,
  HumanMessage,
} from '@langchain/core/messages';

/** The standard content block of a file part, by the kind its media type names. */
function fileBlock(part: Extract<Part, { kind: 'file' }>): ContentBlock.Multimodal.Standard {
  const [family] = part.mediaType.split('/');
  const type = family === 'image' || family === 'audio' || family === 'video' ? family : 'file';
  const source =
    part.url !== undefined
      ? { url: part.url, mimeType: part.mediaType }
      : { data: part.bytes, mimeType: part.mediaType };
  return {
    type,
    ...source,
    ...(part.name !== undefined && { metadata: { filename: part.name } }),
  } as ContentBlock.Multimodal.Standard;
}

/** One of our parts as a LangChain content block: text as text, data as its JSON in text. */
function contentBlock(part: Part): ContentBlock.Standard {
  if (part.kind === 'text') return { type: 'text', text: part.text };
  // Models take no structured data part of their own: the JSON text is what a model reads best.
  if (part.kind === 'data') return { type: 'text', text: JSON.stringify(part.data) };
  return fileBlock(part);
}

/**
 * One of our messages as a LangChain message, the caller's as a `HumanMessage` and the agent's as
 * an `AIMessage`: a message of text parts only as its text, any other as standard content blocks.
 */
export function toLangChainMessage(message: Message): BaseMessage {
  const textOnly = message.parts.every((part) => part.kind === 'text');
  const content = textOnly ? textOf(message.parts) : message.parts.map(contentBlock);
  return message.role === 'agent' ? new AIMessage({ content }) : new HumanMessage({ content });
}
