import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

/** A request for {@link sendRequest}: POST with a JSON content type unless said otherwise. */
export interface SentRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Send the body chunked, without a Content-Length. */
  chunked?: boolean;
}

/** What came back: the status, the headers as Node parsed them, and the whole body as text. */
export interface ReceivedAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * Sends one request over a real socket with `node:http` (a declared `Content-Length`, or a body
 * in two chunks with `chunked`) and reads its whole answer: for tests that compare what two
 * servers answer byte for byte.
 */
export function sendRequest(base: string, sent: SentRequest): Promise<ReceivedAnswer> {
  return new Promise((resolve, reject) => {
    const body = sent.body ?? '';
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      ...sent.headers,
    };
    if (!sent.chunked) headers['content-length'] = Buffer.byteLength(body);
    const request = httpRequest(`${base}${sent.path}`, { method: sent.method ?? 'POST', headers });
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    if (sent.chunked) {
      request.write(body.slice(0, 3));
      request.end(body.slice(3));
    } else {
      request.end(body);
    }
  });
}
