export {
  type ErrorBody,
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
  UnsupportedMediaTypeError,
} from './http/http-errors.ts';
export { DEFAULT_MAX_BODY_BYTES, limitBody, parseJsonBody } from './http/json-body.ts';
export {
  type FetchApp,
  type ListenAddress,
  ListenError,
  type ListenOptions,
  listen,
} from './http/listen.ts';
export { formatComment, formatSSE, type SSEMessage } from './sse/format-sse.ts';
export {
  createSSEWriter,
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_MAX_BUFFERED_BYTES,
  type SSETarget,
  type SSEWriter,
  type SSEWriterOptions,
  sseErrorMessage,
} from './sse/sse-writer.ts';
export { SSE_HEADERS, streamSSE } from './sse/stream-sse.ts';
