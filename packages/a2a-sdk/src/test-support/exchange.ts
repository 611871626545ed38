/** One HTTP exchange, reduced to what two servers must agree on. */
export interface Exchange {
  status: number;
  /** The media type of the response (no parameters). */
  mediaType: string | undefined;
  /** The body: parsed JSON, SSE events (each parsed), or text; ids and times replaced. */
  body: unknown;
}

/** A request relative to a mount (`/jsonrpc`, `/rest/...`, `/.well-known/agent-card.json`). */
export interface ExchangeRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** A JSON body (sent as application/json unless headers say otherwise), or raw bytes. */
  json?: unknown;
  raw?: string | Uint8Array<ArrayBuffer>;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z/g;

/** Replaces what differs between two servers by nature: their origin, random ids and times. */
export function normalize(text: string, origin: string): string {
  return text.replaceAll(origin, 'ORIGIN').replace(UUID, 'UUID').replace(TIME, 'TIME');
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function sseEvents(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines
        .find((line) => line.startsWith('event:'))
        ?.slice(6)
        .trim();
      const data = lines
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      return { event: event ?? 'message', data: parse(data) };
    });
}

/** Sends a request to `<baseUrl><path>` and reduces the response to an {@link Exchange}. */
export async function exchange(baseUrl: string, request: ExchangeRequest): Promise<Exchange> {
  const headers: Record<string, string> = { ...request.headers };
  let body: string | Uint8Array<ArrayBuffer> | undefined = request.raw;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const mediaType = response.headers.get('content-type')?.split(';')[0]?.trim();
  const text = normalize(await response.text(), new URL(baseUrl).origin);
  return {
    status: response.status,
    mediaType,
    body: mediaType === 'text/event-stream' ? sseEvents(text) : parse(text),
  };
}
