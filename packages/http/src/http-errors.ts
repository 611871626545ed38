import { AgentPortError } from '@agentport/core';

/** No route matches the request path (404). */
export class RouteNotFoundError extends AgentPortError {
  /** The path that was asked for. */
  readonly path: string;

  constructor(path: string) {
    super({ code: 'not_found', message: `No route for ${path}`, status: 404 });
    this.name = 'RouteNotFoundError';
    this.path = path;
  }
}

/** The route exists but not for this method (405); `allow` lists the methods it answers. */
export class MethodNotAllowedError extends AgentPortError {
  /** The methods the route answers, for the `Allow` header. */
  readonly allow: readonly string[];

  constructor(method: string, allow: readonly string[]) {
    super({
      code: 'method_not_allowed',
      message: `Method ${method} not allowed; use ${allow.join(', ')}`,
      status: 405,
    });
    this.name = 'MethodNotAllowedError';
    this.allow = allow;
  }
}

/**
 * The request body is larger than the limit (413). When it was refused before it was read to its
 * end (`bodyUnread`, as `limitBody` and the REST routes refuse every body over the limit), the
 * answer says `Connection: close`: the connection cannot carry another request, and Node ends it
 * once the answer is sent, rather than reading an upload it will refuse.
 */
export class PayloadTooLargeError extends AgentPortError {
  /** The limit, in bytes. */
  readonly maxBytes: number;
  /** Whether the body was refused before it was read to its end. */
  readonly bodyUnread: boolean;

  constructor(maxBytes: number, bodyUnread = false) {
    super({
      code: 'payload_too_large',
      message: `Request body larger than ${maxBytes} bytes`,
      status: 413,
    });
    this.name = 'PayloadTooLargeError';
    this.maxBytes = maxBytes;
    this.bodyUnread = bodyUnread;
  }
}

/** The request body is not JSON, or is JSON in a charset other than UTF-8 (415). */
export class UnsupportedMediaTypeError extends AgentPortError {
  /** The charset a JSON content type named other than UTF-8, when that is why it is refused. */
  readonly charset: string | undefined;

  constructor(contentType: string | undefined, charset?: string) {
    super({
      code: 'unsupported_media_type',
      message:
        charset === undefined
          ? `Content-Type must be application/json${contentType ? `, got ${contentType}` : ''}`
          : `JSON is taken in UTF-8 only, got charset ${charset}`,
      status: 415,
    });
    this.name = 'UnsupportedMediaTypeError';
    this.charset = charset;
  }
}

/** The request body is not well-formed JSON, or not UTF-8 (400). */
export class InvalidJsonError extends AgentPortError {
  constructor(message = 'Request body is not valid JSON') {
    super({ code: 'invalid_json', message, status: 400 });
    this.name = 'InvalidJsonError';
  }
}

/**
 * The request body is sent with a `Content-Encoding` (such as gzip) the server does not decode
 * (415 `unsupported_media_type`, RFC 9110 15.5.16): bodies are taken uncompressed.
 */
export class UnsupportedContentEncodingError extends AgentPortError {
  /** The encoding as the request named it. */
  readonly encoding: string;

  constructor(encoding: string) {
    super({
      code: 'unsupported_media_type',
      message: `Content-Encoding ${encoding} is not supported: send the body uncompressed`,
      status: 415,
    });
    this.name = 'UnsupportedContentEncodingError';
    this.encoding = encoding;
  }
}

/** The server is shutting down and takes no new work (503). */
export class ShuttingDownError extends AgentPortError {
  constructor() {
    super({ code: 'shutting_down', message: 'The server is shutting down', status: 503 });
    this.name = 'ShuttingDownError';
  }
}
