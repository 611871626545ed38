import { createRemoteAgent, RemoteUnreachableError } from '@agentport/a2a-http';
import { agentCardUrlOf, createRemoteSdkAgent } from '@agentport/a2a-sdk';
import {
  type Agent,
  type AgentEvent,
  AgentPortError,
  defineAgent,
  InvalidInputError,
  isValidAgentName,
} from '@agentport/core';
import { EventSourceParserStream } from 'eventsource-parser/stream';

/** The hand-rolled A2A card path; any other `.json` URL is taken as an official SDK card. */
const HAND_ROLLED_CARD = '/.well-known/agent.json';

/** Whether a command-line argument names a remote agent by URL rather than a local one by name. */
export function isAgentUrl(argument: string): boolean {
  return /^https?:\/\//i.test(argument);
}

/** A URL as errors show it: without credentials or query (which may carry a token). */
export function shownUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** Refuses a URL that is not http(s) or that holds credentials (they would end up in errors). */
function parseAgentUrl(url: string): URL {
  if (!URL.canParse(url)) throw new InvalidInputError(`Invalid agent URL '${url}'`);
  const parsed = new URL(url);
  if (parsed.username !== '' || parsed.password !== '') {
    throw new InvalidInputError('The agent URL must not contain credentials');
  }
  return parsed;
}

/** The error a REST/SSE agent answered with, by its code, as the gateway's own errors print. */
async function answeredError(response: Response, url: string): Promise<AgentPortError> {
  const body = (await response.json().catch(() => undefined)) as
    | { error?: { code?: unknown; message?: unknown } }
    | undefined;
  const { code, message } = body?.error ?? {};
  return new AgentPortError({
    code: typeof code === 'string' ? code : 'remote_agent_error',
    message: typeof message === 'string' ? message : `${shownUrl(url)} answered ${response.status}`,
    status: 502,
  });
}

/** POSTs `{input}` to a REST/SSE route, turning a failure to connect into a readable error. */
async function post(
  url: string,
  input: string,
  signal: AbortSignal,
  headers: Record<string, string>,
): Promise<Response> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
    signal,
  }).catch((error: unknown) => {
    if (signal.aborted) throw error;
    throw new RemoteUnreachableError('stream', shownUrl(url), error);
  });
  if (!response.ok) throw await answeredError(response, url);
  return response;
}

/** The agent events of a REST/SSE stream: each SSE event is named by its type, `data` the rest. */
async function* restEvents(response: Response): AsyncGenerator<AgentEvent> {
  const events = (response.body as ReadableStream<Uint8Array>)
    // TypeScript's DOM types type the decoder's writable side too widely for a byte stream.
    .pipeThrough(new TextDecoderStream() as TransformStream<Uint8Array, string>)
    .pipeThrough(new EventSourceParserStream());
  for await (const message of events) {
    if (message.event === undefined) continue;
    yield { ...(JSON.parse(message.data) as object), type: message.event } as AgentEvent;
  }
}

/**
 * A REST/SSE agent (`POST {url}/invoke` and `{url}/stream`) as a local agent: its deltas,
 * tool calls and handoffs passed on as they come, its error as the run's own.
 */
function restAgent(base: URL, headers: Record<string, string>): Agent {
  const stream = new URL(base);
  stream.pathname = `${base.pathname}/stream`;
  const last = base.pathname.slice(base.pathname.lastIndexOf('/') + 1);
  return defineAgent({
    name: isValidAgentName(last) ? last : 'remote',
    async *run(input, context) {
      const response = await post(stream.href, input, context.signal, headers);
      for await (const event of restEvents(response)) {
        if (event.type === 'done') return event.output;
        if (event.type === 'error') {
          throw new AgentPortError({ code: event.code, message: event.message, status: 502 });
        }
        // A remote's pause is its caller's to answer there: handed on as this run's own.
        if (event.type === 'input-required') return event;
        yield event;
      }
      throw new AgentPortError({
        code: 'remote_agent_error',
        message: `The stream of ${shownUrl(stream.href)} ended without a result`,
        status: 502,
      });
    },
  });
}

/** Whether an official SDK agent card answers at `cardUrl` (an SDK agent's base URL was given). */
async function hasSdkCard(cardUrl: string, headers: Record<string, string>): Promise<boolean> {
  const response = await fetch(cardUrl, {
    headers: { ...headers, accept: 'application/json', 'a2a-version': '1.0' },
    signal: AbortSignal.timeout(10_000),
  }).catch(() => undefined);
  if (response?.ok !== true) return false;
  const card = (await response.json().catch(() => undefined)) as
    | Record<string, unknown>
    | undefined;
  return Array.isArray(card?.supportedInterfaces) || typeof card?.protocolVersion === 'string';
}

/**
 * The remote agent at a URL: an A2A card URL (`.../.well-known/agent.json` for the hand-rolled
 * flavour, any other `.json`, such as `.../agent-card.json`, for the official SDK's), an official
 * SDK agent's base URL (one whose `.well-known/agent-card.json` answers, such as
 * `http://host:8080/a2a/echo`) or a REST/SSE agent URL (where `/invoke` and `/stream` live, such
 * as `http://host:8080/agents/echo`); `headers` go with every request (an API key).
 */
export async function connectAgentUrl(
  url: string,
  headers: Record<string, string> = {},
): Promise<Agent> {
  const parsed = parseAgentUrl(url);
  if (parsed.pathname.endsWith(HAND_ROLLED_CARD))
    return createRemoteAgent({ baseUrl: parsed, headers });
  if (parsed.pathname.endsWith('.json')) return createRemoteSdkAgent({ url: parsed.href, headers });
  const rest = /\/(?:invoke|stream)\/*$/.test(parsed.pathname);
  const cardUrl = agentCardUrlOf(parsed.href);
  if (!rest && (await hasSdkCard(cardUrl, headers))) {
    return createRemoteSdkAgent({ url: cardUrl, headers });
  }
  parsed.pathname = parsed.pathname.replace(/\/+$/, '').replace(/\/(?:invoke|stream)$/, '');
  return restAgent(parsed, headers);
}
