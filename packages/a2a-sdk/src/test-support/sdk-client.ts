import {
  type AgentCard,
  type Part,
  SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskState,
} from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';

/** A binding and protocol version of the official client. */
export interface ClientFlavour {
  binding: 'JSONRPC' | 'HTTP+JSON';
  version: '1.0' | '0.3';
}

/** Every flavour the server must serve. */
export const FLAVOURS: ClientFlavour[] = [
  { binding: 'JSONRPC', version: '1.0' },
  { binding: 'HTTP+JSON', version: '1.0' },
  { binding: 'JSONRPC', version: '0.3' },
  { binding: 'HTTP+JSON', version: '0.3' },
];

/**
 * The official SDK client for one binding and version of a served agent: the card is read as a
 * v1.0 client reads it, then narrowed to that one interface (the v0.3 ones go through the SDK's
 * legacy transports).
 */
export async function officialClient(cardUrl: string, flavour: ClientFlavour): Promise<Client> {
  const legacyCompat = { enabled: true };
  const card: AgentCard = await new DefaultAgentCardResolver({ legacyCompat }).resolve(cardUrl, '');
  const supportedInterfaces = card.supportedInterfaces.filter(
    (agentInterface) =>
      agentInterface.protocolBinding === flavour.binding &&
      agentInterface.protocolVersion === flavour.version,
  );
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ legacyCompat }),
      new RestTransportFactory({ legacyCompat }),
    ],
  });
  return factory.createFromAgentCard({ ...card, supportedInterfaces });
}

/** A SendMessage request with one text part. */
export function textRequest(
  text: string,
  options: { returnImmediately?: boolean; historyLength?: number; contextId?: string } = {},
): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: globalThis.crypto.randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text }],
      ...(options.contextId === undefined ? {} : { contextId: options.contextId }),
    },
    configuration: {
      returnImmediately: options.returnImmediately ?? false,
      ...(options.historyLength === undefined ? {} : { historyLength: options.historyLength }),
    },
  });
}

/** The text of some parts. */
export function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('');
}

/** The text of a task's `output` artifact. */
export function outputOf(task: Task): string {
  return textOf(task.artifacts?.find((artifact) => artifact.artifactId === 'output')?.parts);
}

/** The kinds of a list of stream events, such as `task`, `statusUpdate:2`, `artifactUpdate`. */
export function kindsOf(events: StreamResponse[]): string[] {
  return events.map((event) =>
    event.payload?.$case === 'statusUpdate'
      ? `statusUpdate:${TaskState[event.payload.value.status?.state ?? 0]}`
      : (event.payload?.$case ?? 'none'),
  );
}

/** Polls until `check` returns a value (or throws after `timeoutMs`). */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('Timed out waiting for a condition');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
