export { BatchingServerResponse } from './http/batching-response.ts';
export { answeredInsteadOf } from './http/client-error.ts';
export { hasDotSegment, refuseDotSegments } from './http/dot-segments.ts';
export {
  type ErrorAnswer,
  type ErrorBody,
  errorAnswer,
  errorResponse,
  jsonErrorHandler,
  jsonNotFoundHandler,
  methodNotAllowed,
} from './http/error-response.ts';
export {
  InvalidJsonError,
  MethodNotAllowedError,
  PayloadTooLargeError,
  RouteNotFoundError,
  ShuttingDownError,
  UnsupportedContentEncodingError,
  UnsupportedMediaTypeError,
} from './http/http-errors.ts';
export {
  DEFAULT_MAX_BODY_BYTES,
  decodeJsonBody,
  isJsonContentType,
  limitBody,
  parseJsonBody,
  parseJsonText,
} from './http/json-body.ts';
export {
  answerUnservable,
  type FetchApp,
  type ListenAddress,
  ListenError,
  type ListenOptions,
  listen,
} from './http/listen.ts';
export {
  type AnswerHeaders,
  type CallerSignal,
  callerSignal,
  hasPlainJsonBody,
  type NodeRouteHandler,
  readBody,
  writeAnswer,
  writeErrorAnswer,
} from './http/node-answer.ts';
export { parseQuery } from './http/parse-query.ts';
export { incomingHeader, requestHeader, sentPath } from './http/request-header.ts';
export { setResponseHeader } from './http/response-header.ts';
export { agentFailure, writeAgentEvents } from './server/agent-events.ts';
export { type AgentSummary, describeAgent } from './server/describe-agent.ts';
export {
  createRestServer,
  invokeRequestSchema,
  type RestServer,
  type RestServerOptions,
} from './server/rest-server.ts';
export { normalizeRouteName } from './server/route-name.ts';
export { formatComment, formatSSE, type SSEMessage } from './sse/format-sse.ts';
export {
  SSE_HEADERS,
  type SSENodeTarget,
  type SSEStreamTarget,
  type SSETarget,
} from './sse/sse-target.ts';
export {
  createSSEWriter,
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_MAX_BUFFERED_BYTES,
  type SSEWriter,
  type SSEWriterOptions,
  sseErrorMessage,
} from './sse/sse-writer.ts';
export { type StreamSSEOptions, streamSSE } from './sse/stream-sse.ts';
export { StreamingUnsupportedError } from './sse/streaming-unsupported-error.ts';
