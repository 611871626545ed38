import { SendMessageRequest, type StreamResponse } from '@a2a-js/sdk';
import { createEchoAgent } from '@agentport/core/agents';
import { describe, expect, it } from 'vitest';
import { createAgentCard } from '../card/agent-card.ts';
import {
  AppendKeepingLegacyRestTransport,
  AppendKeepingRestTransportFactory,
} from './rest-transport-factory.ts';

const request = SendMessageRequest.fromJSON({
  message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] },
});

function artifactUpdate(text: string, append?: boolean): string {
  const update = {
    taskId: 't1',
    contextId: 'c1',
    artifact: { artifactId: 'output', parts: [{ text }] },
    ...(append === undefined ? {} : { append }),
  };
  return JSON.stringify({ artifactUpdate: update });
}

/** A fetch answering every request with `body` as SSE, `chunkSize` bytes at a time. */
function sseFetch(body: string, chunkSize: number): typeof fetch {
  return async () => {
    const bytes = new TextEncoder().encode(body);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let start = 0; start < bytes.length; start += chunkSize) {
          controller.enqueue(bytes.slice(start, start + chunkSize));
        }
        controller.close();
      },
    });
    return new Response(stream, { headers: { 'Content-Type': 'text/event-stream' } });
  };
}

function updatesOf(events: StreamResponse[]): [string, boolean][] {
  return events.flatMap((event) =>
    event.payload?.$case === 'artifactUpdate'
      ? [
          [
            (event.payload.value.artifact?.parts ?? [])
              .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
              .join(''),
            event.payload.value.append,
          ],
        ]
      : [],
  );
}

describe('the v0.3 HTTP+JSON transport of remote agents', () => {
  it.each([1, 5, 64, 4096])(
    'keeps the append flag of each streamed artifact update (SSE read %i bytes at a time)',
    async (chunkSize) => {
      const body = [
        ': a comment\r\n',
        `data: {"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}\r\n\r\n`,
        `data: ${artifactUpdate('tick → 1', true)}\r\n\r\n`,
        `event: message\ndata: ${artifactUpdate('replaced é', false)}\n\n`,
        `data: ${artifactUpdate('no flag')}\n\n`,
        // The last event ends without its blank line, which the SDK still reads.
        `data: ${artifactUpdate(' end', true)}\n`,
      ].join('');
      const transport = new AppendKeepingLegacyRestTransport({
        endpoint: 'http://remote.test/rest',
        fetchImpl: sseFetch(body, chunkSize),
      });
      const events: StreamResponse[] = [];
      for await (const event of transport.sendMessageStream(request)) events.push(event);
      expect(events.map((event) => event.payload?.$case)).toEqual([
        'task',
        'artifactUpdate',
        'artifactUpdate',
        'artifactUpdate',
        'artifactUpdate',
      ]);
      expect(updatesOf(events)).toEqual([
        ['tick → 1', true],
        ['replaced é', false],
        ['no flag', false],
        [' end', true],
      ]);
    },
  );

  it("is made for a card offering v0.3 HTTP+JSON only, the SDK's own transport for v1.0", async () => {
    const card = createAgentCard({
      agent: createEchoAgent(),
      card: {
        name: 'echo',
        version: '1.0.0',
        description: 'Echo',
        url: 'http://remote.test/a2a/echo',
      },
    });
    const legacyOnly = {
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter(
        (agentInterface) => agentInterface.protocolVersion === '0.3',
      ),
    };
    const url = 'http://remote.test/a2a/echo/rest';
    const factory = new AppendKeepingRestTransportFactory({ legacyCompat: { enabled: true } });
    expect(factory.protocolName).toBe('HTTP+JSON');
    const legacy = await factory.create(url, legacyOnly);
    expect(legacy).toBeInstanceOf(AppendKeepingLegacyRestTransport);
    expect(legacy.protocolVersion).toBe('0.3');
    const current = await factory.create(url, card);
    expect(current).not.toBeInstanceOf(AppendKeepingLegacyRestTransport);
    expect(current.protocolVersion).toBe('1.0');
  });
});
