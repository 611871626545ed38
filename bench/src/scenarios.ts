/** The bodies, routes and checks of every scenario, shared by the runner and the preflight. */

/** The text every echo call sends. */
export const ECHO_INPUT = 'hello';
/** Nine words: the echo agent streams nine text deltas and `done`, a 10-event stream. */
export const STREAM_INPUT = 'w1 w2 w3 w4 w5 w6 w7 w8 w9';
/** The ticker input for idle streams: a first tick at once, the next a minute later. */
export const IDLE_INPUT = '2 every 60s';
/** The conversation of the long-conversation invoke, and how many messages it keeps. */
export const CONVERSATION_ID = 'bench-conversation';
export const CONVERSATION_MESSAGES = 50;
/** The A2A version header the SDK needs for v1.0 methods. */
export const A2A_HEADERS = { 'A2A-Version': '1.0' };

/** A JSON-RPC body; `{{n}}` is replaced per request by wrk (unique message ids). */
export function jsonRpcBody(method: 'SendMessage' | 'SendStreamingMessage'): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: {
      message: { messageId: 'm-{{n}}', role: 'ROLE_USER', parts: [{ text: ECHO_INPUT }] },
    },
  });
}

/** The same body with a fixed message id, for one-off requests. */
export function oneJsonRpcBody(method: 'SendMessage' | 'SendStreamingMessage'): string {
  return jsonRpcBody(method).replace('{{n}}', crypto.randomUUID());
}

/** The number of SSE events (frames with data) in a body. */
export function countEvents(text: string): number {
  return text.split('\n\n').filter((frame) => /^data:/m.test(frame)).length;
}

/** How many times `needle` occurs in `text`. */
export function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** The framework-adapter scenario's agent: its name on every server (gateway route, Mastra id). */
export const ADAPTER_AGENT = 'weather';
/** What the scenario asks the agent. */
export const ADAPTER_PROMPT = 'What is the weather in Paris?';
/** How many text deltas the scenario's mock model streams after its tool call. */
export const ADAPTER_TEXT_DELTAS = 50;
/** The AI SDK's own route of the scenario, on a bare Hono app. */
export const AI_SDK_ROUTE = '/api/chat';

/**
 * The framework-adapter scenario on one server: its route, the body it is sent, the text that
 * marks its tool-call frame (for the time to the first tool call) and the check of a whole stream.
 */
export interface AdapterTarget {
  path: string;
  body: string;
  toolCallMarker: string;
  /** Whether a stream carries the tool call, its result, the 50 text deltas and the end. */
  complete(text: string): boolean;
}

/**
 * The scenario's three servers: AgentPort's REST/SSE stream of the `fromAiSdk` agent, the AI SDK's
 * own UI message stream and Mastra's agent stream, each as it names its parts.
 */
export function adapterTargets(): Record<'gateway' | 'ai-sdk-hono' | 'mastra-hono', AdapterTarget> {
  const input = JSON.stringify({ input: ADAPTER_PROMPT });
  const each = (text: string, parts: readonly string[], delta: string, end: string) =>
    parts.every((part) => occurrences(text, part) === 1) &&
    occurrences(text, delta) === ADAPTER_TEXT_DELTAS &&
    text.includes(end);
  return {
    gateway: {
      path: `/agents/${ADAPTER_AGENT}/stream`,
      body: input,
      toolCallMarker: 'event: tool-call',
      complete: (text) =>
        each(
          text,
          ['event: tool-call\n', 'event: tool-result\n'],
          'event: text-delta\n',
          'event: done\n',
        ),
    },
    'ai-sdk-hono': {
      path: AI_SDK_ROUTE,
      body: input,
      toolCallMarker: '"type":"tool-input-available"',
      complete: (text) =>
        each(
          text,
          ['"type":"tool-input-available"', '"type":"tool-output-available"'],
          '"type":"text-delta"',
          '"type":"finish"',
        ),
    },
    'mastra-hono': {
      path: `/api/agents/${ADAPTER_AGENT}/stream`,
      body: JSON.stringify({ messages: ADAPTER_PROMPT }),
      toolCallMarker: 'data: {"type":"tool-call"',
      complete: (text) =>
        each(
          text,
          ['data: {"type":"tool-call"', 'data: {"type":"tool-result"'],
          'data: {"type":"text-delta"',
          'data: {"type":"finish"',
        ),
    },
  };
}
