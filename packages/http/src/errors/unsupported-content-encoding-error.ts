import { AgentPortError } from '@agentport/core';

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
