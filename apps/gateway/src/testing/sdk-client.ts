import { SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';

/** The four ways the official client talks to an agent: two bindings, two protocol versions. */
export const FLAVOURS = [
  { binding: 'JSONRPC', version: '1.0' },
  { binding: 'HTTP+JSON', version: '1.0' },
  { binding: 'JSONRPC', version: '0.3' },
  { binding: 'HTTP+JSON', version: '0.3' },
] as const;

/** A message request with one text part, and its configuration if any. */
export function textRequest(
  text: string,
  configuration?: { returnImmediately?: boolean },
): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
    ...(configuration === undefined ? {} : { configuration }),
  });
}

/** The text of a task's `output` artifact. */
export function outputOf(task: Task): string {
  const parts = task.artifacts?.find((artifact) => artifact.artifactId === 'output')?.parts ?? [];
  return parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

/** The official client of the card at `cardUrl`, on one binding and protocol version only. */
export async function officialClient(
  cardUrl: string,
  flavour: { binding: string; version: string },
): Promise<Client> {
  const legacyCompat = { enabled: true };
  const card = await new DefaultAgentCardResolver({ legacyCompat }).resolve(cardUrl, '');
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ legacyCompat }),
      new RestTransportFactory({ legacyCompat }),
    ],
  });
  return factory.createFromAgentCard({
    ...card,
    supportedInterfaces: card.supportedInterfaces.filter(
      (entry) =>
        entry.protocolBinding === flavour.binding && entry.protocolVersion === flavour.version,
    ),
  });
}

/** Every event of an official client's stream. */
export async function collect(events: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const all: StreamResponse[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/**
 * The text of the snapshot's `output` artifact and the chunks after it, end to end (the SDK's v0.3
 * HTTP+JSON client drops `append` as it decodes, so the chunks are not folded by it; no chunk of
 * these streams replaces the artifact).
 */
export function streamedOutput(events: readonly StreamResponse[]): string {
  let text = '';
  for (const { payload } of events) {
    if (payload?.$case === 'task') text = outputOf(payload.value);
    if (payload?.$case !== 'artifactUpdate') continue;
    text += outputOf({ artifacts: [payload.value.artifact] } as Task);
  }
  return text;
}
