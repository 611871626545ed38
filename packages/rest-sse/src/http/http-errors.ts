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

/** The request body is larger than the limit (413). */
export class PayloadTooLargeError extends AgentPortError {
  /** The limit, in bytes. */
  readonly maxBytes: number;

  constructor(maxBytes: number) {
    super({
      code: 'payload_too_large',
      message: `Request body larger than ${maxBytes} bytes`,
      status: 413,
    });
    this.name = 'PayloadTooLargeError';
    this.maxBytes = maxBytes;
  }
}

/** The request body is not JSON (415). */
export class UnsupportedMediaTypeError extends AgentPortError {
  constructor(contentType: string | undefined) {
    super({
      code: 'unsupported_media_type',
      message: `Content-Type must be application/json${contentType ? `, got ${contentType}` : ''}`,
      status: 415,
    });
    this.name = 'UnsupportedMediaTypeError';
  }
}

/** The request body is not well-formed JSON (400). */
export class InvalidJsonError extends AgentPortError {
  constructor() {
    super({ code: 'invalid_json', message: 'Request body is not valid JSON', status: 400 });
    this.name = 'InvalidJsonError';
  }
}

/** The server is shutting down and takes no new work (503). */
export class ShuttingDownError extends AgentPortError {
  constructor() {
    super({ code: 'shutting_down', message: 'The server is shutting down', status: 503 });
    this.name = 'ShuttingDownError';
  }
}
