export { hasDotSegment, refuseDotSegments } from './dot-segments.ts';
export {
  type ErrorAnswer,
  type ErrorBody,
  errorAnswer,
  errorResponse,
  jsonErrorHandler,
  jsonNotFoundHandler,
  methodNotAllowed,
} from './error-response.ts';
export { InvalidJsonError } from './errors/invalid-json-error.ts';
export { MethodNotAllowedError } from './errors/method-not-allowed-error.ts';
export { PayloadTooLargeError } from './errors/payload-too-large-error.ts';
export { RouteNotFoundError } from './errors/route-not-found-error.ts';
export { ShuttingDownError } from './errors/shutting-down-error.ts';
export { UnsupportedContentEncodingError } from './errors/unsupported-content-encoding-error.ts';
export { UnsupportedMediaTypeError } from './errors/unsupported-media-type-error.ts';
export {
  DEFAULT_MAX_BODY_BYTES,
  declaredBodyOverLimit,
  decodeJsonBody,
  isJsonContentType,
  type LimitBodyOptions,
  limitBody,
  mediaTypeOf,
  parseJsonBody,
  parseJsonText,
  readJsonBody,
  readJsonBytes,
} from './json-body.ts';
export {
  type JsonBodyFailure,
  type JsonBodyResult,
  jsonBodyError,
  type ReadJsonOptions,
  readJsonText,
} from './json-text.ts';
export { lastEventIdOf, parseLastEventId } from './last-event-id.ts';
export { agentInputOf, type InputValue, inputSchema, partSchema } from './message-input.ts';
export { parseQuery } from './parse-query.ts';
export {
  type IncomingHeaders,
  incomingHeader,
  incomingHeaders,
  requestHeader,
  sentPath,
} from './request-header.ts';
export { setResponseHeader } from './response-header.ts';
export {
  type ActionAnswer,
  type ActionCall,
  type ActionStreamOptions,
  honoAction,
  type JsonActionAnswer,
  type RouteAction,
  type StreamActionAnswer,
} from './route-action.ts';
export { agentFailure, pumpAgentEvents, writeAgentEvents } from './sse/agent-events.ts';
export { formatComment, formatSSE, type SSEMessage } from './sse/format-sse.ts';
export {
  type FirstStep,
  firstStep,
  type SSEResponseOptions,
  sseResponse,
} from './sse/sse-response.ts';
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
export { openSSE, type StreamSSEOptions, streamSSE } from './sse/stream-sse.ts';
export { StreamingUnsupportedError } from './sse/streaming-unsupported-error.ts';
