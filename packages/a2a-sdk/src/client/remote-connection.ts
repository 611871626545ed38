import type { AgentCard } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { RemoteAgentCardError } from '../errors/remote-agent-card-error.ts';
import type { RemoteSdkAgentOptions } from './remote-agent.ts';
import { AppendKeepingRestTransportFactory } from './rest-transport-factory.ts';

// Reaching a remote SDK agent: its card, read within a time and without redirects, and a client.

/** The default of {@link RemoteSdkAgentOptions.cardTimeoutMs}. */
const CARD_TIMEOUT_MS = 30_000;
/** The most of a remote's error that callers are shown (the whole stays in the error's cause). */
const MAX_REASON_LENGTH = 300;

/** What a `fetch` failure's cause says: its whole message (for the operator, at start). */
const causeMessage = (cause: Error): string => cause.message;

/**
 * What a `fetch` failure's cause says to a call's callers: its code (`ECONNREFUSED`, `ENOTFOUND`)
 * rather than its message, which names the remote's address or host name (a gateway serving the
 * agent would hand it to anyone who calls, as the a2a-http remote agent does not).
 */
export const causeCode = (cause: Error): string => {
  const code = (cause as { code?: unknown }).code;
  return typeof code === 'string' ? code : cause.message;
};

/**
 * Why a call failed, as callers may be told it: the SDK's transports end their HTTP errors with
 * the remote's whole answer body (`... Status: 502 Bad Gateway. Response: <html>...`), which may
 * name its internals and be of any size; that part is left out, control characters become
 * spaces, and at most 300 characters are kept. The error itself is the `cause`, for the log.
 */
export function reasonOf(error: unknown, describeCause = causeMessage): string {
  let message = error instanceof Error ? error.message : String(error);
  // `fetch` says only "fetch failed"; what failed (a refused connection, a redirect) is its cause.
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  if (message === 'fetch failed' && cause instanceof Error) message += ` (${describeCause(cause)})`;
  const body = message.indexOf('. Response: ');
  const head = body === -1 ? message : message.slice(0, body);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
  const flat = head.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > MAX_REASON_LENGTH ? `${flat.slice(0, MAX_REASON_LENGTH)}...` : flat;
}
/** A fetch whose every call (the answer and its body) must end within `timeoutMs`. */
function fetchWithin(fetchImpl: typeof fetch, timeoutMs: number): typeof fetch {
  return (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    return fetchImpl(input, { ...init, signal });
  };
}

/**
 * A fetch that never follows a redirect (it fails instead): a remote's redirect would send the
 * message, and headers such as `X-API-Key` (which `fetch` keeps across origins, unlike
 * `Authorization`), to wherever it points. The a2a-http remote agent refuses redirects alike.
 */
function withoutRedirects(fetchImpl: typeof fetch | undefined): typeof fetch {
  return (input, init) => (fetchImpl ?? globalThis.fetch)(input, { ...init, redirect: 'error' });
}

async function loadCard(
  cardUrl: string,
  resolver: DefaultAgentCardResolver,
  timeoutMs: number,
): Promise<AgentCard> {
  let card: AgentCard;
  try {
    card = await resolver.resolve(cardUrl, '');
  } catch (error) {
    const reason =
      (error as Error | undefined)?.name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms`
        : reasonOf(error);
    throw new RemoteAgentCardError(cardUrl, reason, { cause: error });
  }
  if (typeof card?.name !== 'string' || !Array.isArray(card.supportedInterfaces)) {
    throw new RemoteAgentCardError(cardUrl, 'the document is not an A2A AgentCard');
  }
  // An interface at a relative or non-HTTP URL cannot be called: refused now, not at every call.
  const callable = card.supportedInterfaces.filter((entry) => isHttpUrl(entry?.url));
  if (callable.length === 0) {
    throw new RemoteAgentCardError(
      cardUrl,
      'the card names no interface at an absolute http(s) URL',
    );
  }
  return callable.length === card.supportedInterfaces.length
    ? card
    : { ...card, supportedInterfaces: callable };
}

function isHttpUrl(url: unknown): boolean {
  const protocol = typeof url === 'string' ? URL.parse(url)?.protocol : undefined;
  return protocol === 'http:' || protocol === 'https:';
}

/** A connected remote: the SDK client and what every call to it carries. */
export interface RemoteConnection {
  /** The local agent name (what its errors name). */
  readonly name: string;
  readonly client: Client;
  /** The headers sent with every call. */
  readonly serviceParameters: Record<string, string>;
}

/**
 * Reads the remote's card (within `cardTimeoutMs`) and builds the SDK client for it, over the
 * card's preferred binding (or `preferredTransport`), redirects refused.
 */
export async function connectToCard(
  cardUrl: string,
  options: RemoteSdkAgentOptions,
): Promise<{ card: AgentCard; client: Client }> {
  const legacyCompat = { enabled: options.legacyCompat !== false };
  const fetchImpl = withoutRedirects(options.fetch);
  const cardTimeoutMs = options.cardTimeoutMs ?? CARD_TIMEOUT_MS;
  const resolver = new DefaultAgentCardResolver({
    legacyCompat,
    fetchImpl: fetchWithin(fetchImpl, cardTimeoutMs),
  });
  const card = await loadCard(cardUrl, resolver, cardTimeoutMs);
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ legacyCompat, fetchImpl }),
      // The SDK's v0.3 HTTP+JSON transport loses `append` on streamed artifact updates.
      new AppendKeepingRestTransportFactory({ legacyCompat, fetchImpl }),
    ],
    ...(options.preferredTransport ? { preferredTransports: [options.preferredTransport] } : {}),
  });
  try {
    return { card, client: await factory.createFromAgentCard(card) };
  } catch (error) {
    throw new RemoteAgentCardError(cardUrl, reasonOf(error), { cause: error });
  }
}
