import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { defineAgent } from '@agentport/core';
import { createAssistantAgent } from '@agentport/core/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asTask, collect } from '../test-support/conversation.ts';
import { FLAVOURS, kindsOf, officialClient, outputOf, textOf } from '../test-support/sdk-client.ts';
import { type ServedAgent, serveAgent } from '../test-support/servers.ts';

/** An agent that writes a report as an artifact in two chunks, then answers. */
const reporter = defineAgent({
  name: 'reporter',
  async *run() {
    yield {
      type: 'artifact-update',
      artifactId: 'report',
      name: 'Report',
      parts: [{ kind: 'text', text: 'first half' }],
    };
    await new Promise((resolve) => setTimeout(resolve, 20));
    yield {
      type: 'artifact-update',
      artifactId: 'report',
      parts: [{ kind: 'data', data: { total: 2 } }],
      append: true,
      lastChunk: true,
    };
    return 'report written';
  },
});

let assistant: ServedAgent;
let report: ServedAgent;

beforeAll(async () => {
  [assistant, report] = await Promise.all([
    serveAgent(createAssistantAgent(), {
      inputModes: ['text/plain', 'application/json', 'image/png', 'application/pdf'],
    }),
    serveAgent(reporter),
  ]);
});

afterAll(async () => {
  await Promise.all([assistant?.close(), report?.close()]);
});

/** "describe the parts" with a file by bytes, a file by URL and a data part, as v1.0 JSON. */
function describeRequest(): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: crypto.randomUUID(),
      role: 'ROLE_USER',
      parts: [
        { text: 'describe the parts' },
        { raw: 'AQID', mediaType: 'image/png', filename: 'dot.png' },
        { url: 'https://example.com/a.pdf', mediaType: 'application/pdf', filename: 'a.pdf' },
        { data: { city: 'Lyon', people: 4 } },
      ],
    },
  });
}

describe.each(FLAVOURS)(
  'parts and artifacts with the official client over $binding (A2A $version)',
  (flavour) => {
    let assistantClient: Client;
    let reportClient: Client;

    beforeAll(async () => {
      [assistantClient, reportClient] = await Promise.all([
        officialClient(assistant.cardUrl, flavour),
        officialClient(report.cardUrl, flavour),
      ]);
    });

    it('hands the agent file (by bytes and by URL) and data parts: "describe the parts" says one line each', async () => {
      const task = asTask(await assistantClient.sendMessage(describeRequest()));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(outputOf(task).split('\n')).toEqual([
        'text text/plain 18 bytes',
        'file image/png 3 bytes',
        'file application/pdf at https://example.com/a.pdf',
        'data application/json 26 bytes',
      ]);
    });

    it('runs the agent on a message of one file alone (no text: its input is empty)', async () => {
      const request = SendMessageRequest.fromJSON({
        message: {
          messageId: crypto.randomUUID(),
          role: 'ROLE_USER',
          parts: [{ url: 'https://example.com/b.png', mediaType: 'image/png' }],
        },
      });
      const task = asTask(await assistantClient.sendMessage(request));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.history?.[0]?.parts.map((part) => part.content?.$case)).toEqual(['url']);
    });

    it('keeps the parts in the task history: the file bytes, media type and name, the data', async () => {
      const task = asTask(await assistantClient.sendMessage(describeRequest()));
      const read = await assistantClient.getTask({
        tenant: '',
        id: task.id,
        historyLength: undefined,
      });
      const parts = read.history?.[0]?.parts ?? [];
      expect(parts.map((part) => part.content?.$case)).toEqual(['text', 'raw', 'url', 'data']);
      const raw = parts[1];
      expect(raw?.content?.$case === 'raw' && [...raw.content.value]).toEqual([1, 2, 3]);
      expect(raw?.mediaType).toBe('image/png');
      // v0.3 HTTP+JSON (the SDK's v0.3 protobuf JSON) has no field for a file's name.
      const names = flavour.binding === 'HTTP+JSON' && flavour.version === '0.3';
      expect([raw?.filename, parts[2]?.filename]).toEqual(names ? ['', ''] : ['dot.png', 'a.pdf']);
      expect(parts[3]?.content?.value).toEqual({ city: 'Lyon', people: 4 });
    });

    it('streams artifact chunks as artifact updates (append, lastChunk), and the task keeps the artifact whole', async () => {
      const events = await collect(
        reportClient.sendMessageStream(
          SendMessageRequest.fromJSON({
            message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] },
          }),
        ),
      );
      expect(kindsOf(events).at(-1)).toBe('statusUpdate:TASK_STATE_COMPLETED');
      const updates = events.flatMap((event) =>
        event.payload?.$case === 'artifactUpdate' &&
        event.payload.value.artifact?.artifactId === 'report'
          ? [event.payload.value]
          : [],
      );
      expect(updates.map((update) => update.artifact?.name)).toEqual(['Report', '']);
      expect(updates.map((update) => update.lastChunk)).toEqual([false, true]);
      // The SDK's v0.3 REST client drops `append` when decoding (see the README).
      if (flavour.binding === 'JSONRPC' || flavour.version === '1.0') {
        expect(updates.map((update) => update.append)).toEqual([false, true]);
      }
      const taskId = updates[0]?.taskId ?? '';
      const task = await reportClient.getTask({ tenant: '', id: taskId, historyLength: undefined });
      const artifact = task.artifacts?.find((each) => each.artifactId === 'report');
      expect(artifact?.name).toBe('Report');
      expect(textOf(artifact?.parts)).toBe('first half');
      expect(artifact?.parts.map((part) => part.content?.$case)).toEqual(['text', 'data']);
      expect(outputOf(task)).toBe('report written');
    });
  },
);

describe('the card of an agent that takes files', () => {
  it('lists the media types it was given as its input modes, and text and JSON by default', async () => {
    const response = await fetch(assistant.cardUrl, { headers: { 'A2A-Version': '1.0' } });
    const card = (await response.json()) as Record<string, unknown>;
    expect(card.defaultInputModes).toEqual([
      'text/plain',
      'application/json',
      'image/png',
      'application/pdf',
    ]);
    expect(card.defaultOutputModes).toEqual(['text/plain', 'application/json']);
    const plain = (await (await fetch(report.cardUrl)).json()) as Record<string, unknown>;
    expect(plain.defaultInputModes).toEqual(['text/plain', 'application/json']);
  });
});
