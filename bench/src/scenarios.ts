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
