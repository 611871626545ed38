import type { StreamResponse } from '@a2a-js/sdk';
import { createParser } from 'eventsource-parser';
import Queue from 'yocto-queue';

/** What one SSE event of a v0.3 HTTP+JSON stream said, if it was an artifact update. */
interface ObservedUpdate {
  artifactId: string;
  append: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Reads one SSE event's data as the SDK's v0.3 proto-JSON decoder would see its artifact update. */
function updateOf(data: string): ObservedUpdate | undefined {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (!isRecord(json)) return undefined;
  const update = json.artifactUpdate ?? json.artifact_update;
  if (!isRecord(update)) return undefined;
  const artifact = isRecord(update.artifact) ? update.artifact : {};
  const artifactId = artifact.artifactId ?? artifact.artifact_id;
  return {
    artifactId: artifactId === undefined || artifactId === null ? '' : String(artifactId),
    append: update.append !== undefined && update.append !== null && Boolean(update.append),
  };
}

/**
 * Keeps the `append` flag of the artifact updates of one v0.3 HTTP+JSON stream, which the SDK's
 * `LegacyRestTransport` (1.3) decodes and then drops (every update comes out `append: false`).
 * The fetch it wraps passes the SSE bytes through unchanged and reads each event as it goes by
 * (so the SDK has not yielded an event before it is read here); `restore` then puts the flag back
 * on the SDK's event, one SSE event per SDK event.
 */
export class ArtifactAppendRecorder {
  /** One entry per SSE event the SDK yields: the artifact update it carried, if any. */
  readonly #events = new Queue<ObservedUpdate | undefined>();

  /** A fetch that records the events of the SSE responses it returns. */
  wrap(fetchImpl: typeof fetch | undefined): typeof fetch {
    return async (input, init) => {
      const response = await (fetchImpl ?? globalThis.fetch)(input, init);
      const type = response.headers.get('content-type');
      if (!response.ok || response.body === null || !type?.startsWith('text/event-stream')) {
        return response;
      }
      return new Response(response.body.pipeThrough(this.#observer()), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
  }

  /** The SDK's next event with the `append` flag its SSE event carried. */
  restore(event: StreamResponse): StreamResponse {
    const observed = this.#events.dequeue();
    const payload = event.payload;
    if (payload?.$case !== 'artifactUpdate' || observed === undefined) return event;
    const update = payload.value;
    if (observed.artifactId !== update.artifact?.artifactId || observed.append === update.append) {
      return event;
    }
    return {
      ...event,
      payload: { $case: 'artifactUpdate', value: { ...update, append: observed.append } },
    };
  }

  /**
   * Reads the SSE events going by with eventsource-parser; one that has not ended with its blank
   * line when the stream ends is still read, as the SDK's own parser yields it.
   */
  #observer(): TransformStream<Uint8Array, Uint8Array> {
    const decoder = new TextDecoder();
    const parser = createParser({
      onEvent: (event) => {
        if (event.data !== '' && event.event !== 'error')
          this.#events.enqueue(updateOf(event.data));
      },
    });
    return new TransformStream({
      transform(chunk, controller) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        controller.enqueue(chunk);
      },
      flush() {
        parser.feed(`${decoder.decode()}\n\n`);
      },
    });
  }
}
