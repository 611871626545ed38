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
      return (typeof url === 'string') !== (typeof bytes === 'string')
        ? undefined
        : 'a file part without exactly one of a string url or bytes';
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
