import type { AgentCard, Message, SendMessageRequest, StreamResponse } from '@a2a-js/sdk';
import {
  ContentTypeNotSupportedError,
  ExtensionSupportRequiredError,
  RequestMalformedError,
} from '@a2a-js/sdk/errors';
import type { ServerCallContext } from '@a2a-js/sdk/server';

/**
 * The SDK's checks of a message that starts something new: its parts' media types (when asked
 * to validate them) and the required extensions; then the requested extensions are narrowed to
 * the card's.
 */
export function checkNewMessage(
  card: AgentCard,
  validateInputModes: boolean,
  message: Message,
  context: ServerCallContext,
): void {
  const inputModes = card.defaultInputModes ?? [];
  if (validateInputModes && inputModes.length > 0) {
    for (const part of message.parts ?? []) {
      if (part.mediaType && !inputModes.includes(part.mediaType)) {
        throw new ContentTypeNotSupportedError(
          `Media type '${part.mediaType}' is not supported. Supported media types: ${inputModes.join(', ')}.`,
        );
      }
    }
  }
  const extensions = card.capabilities?.extensions ?? [];
  const requested = context.requestedExtensions;
  if (extensions.length === 0) {
    if (requested !== undefined && requested.length > 0) context.setRequestedExtensions([]);
    return;
  }
  const requestedSet = new Set(requested ?? []);
  const missing = extensions.filter(
    (extension) => extension.required && !requestedSet.has(extension.uri),
  );
  if (missing.length > 0) {
    throw new ExtensionSupportRequiredError(
      `Client must declare support for required extensions: ${missing.map((extension) => extension.uri).join(', ')}`,
    );
  }
  if (requested !== undefined) {
    const exposed = new Set(extensions.map((extension) => extension.uri));
    context.setRequestedExtensions(requested.filter((uri) => exposed.has(uri)));
  }
}

/**
 * The error of a message that has an id and no part, or a part without content: A2A has a
 * message made of one or more parts, each a text, a file or data. The SDK's decoder turns
 * `parts` that are not a list into none and a part it does not know into one without content,
 * and its handler would run the agent on an empty input. Undefined for any other request (a
 * missing message or id is the SDK's own error).
 */
export function emptyMessageError(params: SendMessageRequest): RequestMalformedError | undefined {
  const message = params.message;
  if (!message?.messageId) return undefined;
  const parts = message.parts ?? [];
  if (parts.length === 0) {
    return new RequestMalformedError('message.parts must hold at least one part.');
  }
  const blank = parts.findIndex((part) => part.content === undefined);
  return blank === -1
    ? undefined
    : new RequestMalformedError(`message.parts[${blank}] is not a text, file or data part.`);
}

/** A stream that fails at its first step, as the SDK's own streams fail. */
// biome-ignore lint/correctness/useYield: it fails before its first event
export async function* failedStream(error: Error): AsyncGenerator<StreamResponse, void, undefined> {
  throw error;
}
