import { AgentPortError } from '@agentport/core';

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
