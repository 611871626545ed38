import { randomUuid } from './internal/random-uuid.ts';

// Messages and their parts, as every surface carries them (A2A's shapes, in our own words).

/** A piece of text. */
export interface TextPart {
  readonly kind: 'text';
  readonly text: string;
}

/** A piece of structured data (a JSON object). */
export interface DataPart {
  readonly kind: 'data';
  readonly data: Readonly<Record<string, unknown>>;
}

/** A file, by URL or inline as base64 `bytes`, with its media type and optional name. */
export type FilePart = {
  readonly kind: 'file';
  readonly mediaType: string;
  readonly name?: string;
} & (
  | { readonly url: string; readonly bytes?: never }
  | { readonly bytes: string; readonly url?: never }
);

/** One part of a message or an artifact, discriminated by `kind`. */
export type Part = TextPart | DataPart | FilePart;

/** Who wrote a message: the caller (`user`) or the agent. */
export type MessageRole = 'user' | 'agent';

/** One message of a conversation or a task's history. */
export interface Message {
  readonly messageId: string;
  readonly role: MessageRole;
  readonly parts: readonly Part[];
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Whether a string is standard base64 (padded, no whitespace; empty is zero bytes). */
export function isBase64(text: string): boolean {
  return text.length % 4 === 0 && BASE64.test(text);
}

/** How many bytes a file part's base64 `bytes` hold, without decoding them. */
export function base64Size(bytes: string): number {
  let padding = 0;
  if (bytes.endsWith('==')) padding = 2;
  else if (bytes.endsWith('=')) padding = 1;
  return (bytes.length / 4) * 3 - padding;
}

/** The text of a message's (or an artifact's) text parts, joined by newlines; '' when none. */
export function textOf(parts: readonly Part[]): string {
  let text: string | undefined;
  for (const part of parts) {
    if (part.kind !== 'text') continue;
    text = text === undefined ? part.text : `${text}\n${part.text}`;
  }
  return text ?? '';
}

/**
 * A user message of one text part, with a new random id; frozen, so that the stores keep it as
 * it is rather than a copy.
 */
export function userMessage(text: string): Message {
  return textMessage('user', text);
}

/** An agent message of one text part, with a new random id; frozen, as {@link userMessage}. */
export function agentMessage(text: string): Message {
  return textMessage('agent', text);
}

function textMessage(role: MessageRole, text: string): Message {
  const parts = Object.freeze([Object.freeze({ kind: 'text' as const, text })]);
  return Object.freeze({ messageId: randomUuid(), role, parts });
}

/** What is wrong with a part, or undefined when it has the shape of one. */
function partFault(part: unknown): string | undefined {
  if (typeof part !== 'object' || part === null) return 'a part that is not an object';
  const { kind, text, data, url, bytes, mediaType, name } = part as Record<string, unknown>;
  switch (kind) {
    case 'text':
      return typeof text === 'string' ? undefined : 'a text part without a string text';
    case 'data':
      return typeof data === 'object' && data !== null && !Array.isArray(data)
        ? undefined
        : 'a data part whose data is not an object';
    case 'file':
      if (typeof mediaType !== 'string') return 'a file part without a string mediaType';
      if (name !== undefined && typeof name !== 'string')
        return 'a file part with a non-string name';
      if ((typeof url === 'string') === (typeof bytes === 'string')) {
        return 'a file part without exactly one of a string url or bytes';
      }
      return typeof bytes === 'string' && !isBase64(bytes)
        ? 'a file part whose bytes are not base64'
        : undefined;
    default:
      return 'a part whose kind is not text, data or file';
  }
}

/** What is wrong with a list of parts, or undefined when every one has the shape of a part. */
export function partsFault(parts: unknown): string | undefined {
  if (!Array.isArray(parts)) return 'parts that are not an array';
  for (const part of parts) {
    const fault = partFault(part);
    if (fault !== undefined) return fault;
  }
  return undefined;
}

/**
 * What is wrong with a message, or undefined when it has the shape of one: a string `messageId`,
 * a `role` of `user` or `agent`, and parts that are parts. Stores check what they keep with it
 * (the surfaces parse their bodies with schemas before that).
 */
export function messageFault(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return 'a message that is not an object';
  const { messageId, role, parts } = message as Record<string, unknown>;
  if (typeof messageId !== 'string' || messageId === '') {
    return 'a message without a string messageId';
  }
  if (role !== 'user' && role !== 'agent') return "a message whose role is not 'user' or 'agent'";
  return partsFault(parts);
}
