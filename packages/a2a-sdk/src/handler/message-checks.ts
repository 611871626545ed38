import type { AgentCard, Message } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, ExtensionSupportRequiredError } from '@a2a-js/sdk/errors';
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
