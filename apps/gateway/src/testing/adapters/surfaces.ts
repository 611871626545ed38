import { type Task as A2ATask, SendMessageRequest, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { Task } from '@agentport/core';
import type { EventSourceMessage } from 'eventsource-parser/stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../in-process-gateway.ts';
import { collect, FLAVOURS, officialClient, outputOf, streamedOutput } from '../sdk-client.ts';
import { readEvents } from '../sse.ts';
import { BOOKING, HANG, heard, type ScriptedAgent, WEATHER } from './script.ts';

/** The name every scripted agent is served under. */
const NAME = 'scripted';

// biome-ignore lint/suspicious/noExplicitAny: the JSON answers of three surfaces, read field by field
type Json = any;

/** Waits until `condition` holds, polling every 10 ms for at most 5 s. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The data of the events of one name, parsed. */
function dataOf(events: readonly EventSourceMessage[], name: string): Json[] {
  return events.filter((event) => event.event === name).map((event) => JSON.parse(event.data));
}

/** The text of a task's status message (its question, when input-required). */
function questionOf(task: A2ATask): string {
  return (task.status?.message?.parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('');
}

/** A message request of one text part, continuing a task or a context when given. */
function send(text: string, ids: { taskId?: string; contextId?: string } = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...ids },
  });
}

/** What one SSE stream of the weather turn must hold: the tool's call and result, then the answer. */
function expectWeatherEvents(events: readonly EventSourceMessage[]): void {
  expect(dataOf(events, 'tool-call')).toMatchObject([{ name: WEATHER.tool, input: WEATHER.input }]);
  expect(dataOf(events, 'tool-result')).toMatchObject([
    { name: WEATHER.tool, output: WEATHER.output },
  ]);
  const deltas = dataOf(events, 'text-delta').map((data) => data.delta as string);
  expect(deltas.length).toBeGreaterThanOrEqual(3);
  expect(deltas.join('')).toBe(WEATHER.answer);
  const names = events.map((event) => event.event);
  expect(names.indexOf('tool-result')).toBeLessThan(names.indexOf('text-delta'));
}

/**
 * The suite every framework adapter passes on the gateway over real HTTP: a streamed answer with
 * a tool call, a conversation keeping its history, an approval that pauses and resumes, and a
 * cancel reaching the model's abort signal, on REST/SSE, the hand-rolled A2A routes, the official
 * client on its four transports, and the OpenAI Agents compatibility routes.
 */
export function describeOnEverySurface(
  framework: string,
  create: (name: string) => ScriptedAgent,
): void {
  describe(`${framework} agent, on every surface of the gateway`, () => {
    let scripted: ScriptedAgent;
    let gateway: RunningGateway;

    beforeAll(async () => {
      scripted = create(NAME);
      // A reader that left a stream is waited for this long before its run is canceled.
      gateway = await startGateway({
        agents: [scripted.agent],
        defaultAgent: NAME,
        rejoinGraceMs: 100,
      });
    });

    afterAll(async () => {
      await gateway.stop();
    });

    const request = (path: string, init?: RequestInit) => fetch(`${gateway.url}${path}`, init);
    const post = async (path: string, body: unknown, signal?: AbortSignal) => {
      const response = await request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        ...(signal !== undefined && { signal }),
      });
      return { status: response.status, body: (await response.json()) as Json, response };
    };
    const stream = (path: string, body: unknown, signal?: AbortSignal) =>
      request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify(body),
        ...(signal !== undefined && { signal }),
      });

    /** Reads `response`'s events until the hang turn's first text, then calls `cancel`. */
    async function cancelOnceWaiting(response: Response, cancel: () => unknown): Promise<void> {
      const before = scripted.abortsSeen();
      let canceled = false;
      await readEvents(response, (event) => {
        if (!canceled && event.event === 'text-delta' && event.data.includes(HANG.first)) {
          canceled = true;
          cancel();
        }
      }).catch(() => undefined);
      expect(canceled).toBe(true);
      await eventually(() => scripted.abortsSeen() > before, "the model's signal aborted");
    }

    it("lists the framework's tools: skills on the card, tools in compat and REST", async () => {
      const card = (await (
        await request(`/a2a/${NAME}/.well-known/agent-card.json`)
      ).json()) as Json;
      expect(card.skills.map((skill: Json) => skill.name)).toEqual(
        expect.arrayContaining([WEATHER.tool, BOOKING.tool]),
      );
      const definition = (await (await request(`/compat/agents/${NAME}`)).json()) as Json;
      const weather = definition.tools.find((tool: Json) => tool.function.name === WEATHER.tool);
      expect(weather.function.parameters).toMatchObject({
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      });
      const described = (await (await request(`/agents/${NAME}`)).json()) as Json;
      expect(JSON.stringify(described)).toContain(BOOKING.tool);
    });

    describe('REST/SSE', () => {
      it('streams the answer with its tool call and result', async () => {
        const response = await stream(`/agents/${NAME}/stream`, { input: WEATHER.prompt });
        expect(response.status).toBe(200);
        const events = await readEvents(response);
        expectWeatherEvents(events);
        expect(dataOf(events, 'done')).toEqual([{ output: WEATHER.answer }]);
      });

      it('keeps the history of a conversation continued by contextId', async () => {
        const first = await post(`/agents/${NAME}/invoke`, { input: 'first words' });
        expect(first.body).toMatchObject({ result: heard(['first words']), status: 'completed' });
        const { contextId } = first.body;
        const second = await post(`/agents/${NAME}/invoke`, { input: 'second words', contextId });
        expect(second.body.result).toBe(heard(['first words', 'second words']));
      });

      it('pauses for the approval of a tool and resumes once approved', async () => {
        const first = await post(`/agents/${NAME}/invoke`, { input: BOOKING.prompt });
        expect(first.body.status).toBe('input-required');
        expect(first.body.result).toContain('book');
        const { contextId } = first.body;
        const second = await post(`/agents/${NAME}/invoke`, { input: 'yes', contextId });
        expect(second.body).toMatchObject({ status: 'completed', result: BOOKING.approved });
      });

      it("aborts the model once the stream's caller has been gone for the rejoin grace", async () => {
        const controller = new AbortController();
        const response = await stream(
          `/agents/${NAME}/stream`,
          { input: HANG.prompt },
          controller.signal,
        );
        await cancelOnceWaiting(response, () => controller.abort());
      });
    });

    describe('A2A, hand-rolled', () => {
      const tasks = `/agents/${NAME}/tasks`;

      it("streams a task's tool call and answer in its events", async () => {
        const created = await post(tasks, { input: WEATHER.prompt });
        expect(created.status).toBe(201);
        const { id } = created.body.task as Task;
        const events = await readEvents(await request(`${tasks}/${id}/events?lastEventId=0`));
        expectWeatherEvents(events);
        const done = await request(`${tasks}/${id}?wait=5`);
        expect(((await done.json()) as Json).task).toMatchObject({
          status: 'completed',
          output: WEATHER.answer,
        });
      });

      it('keeps the history of a conversation continued by contextId', async () => {
        const first = await post(`${tasks}?wait=5`, { input: 'alpha' });
        expect(first.body.task).toMatchObject({ status: 'completed', output: heard(['alpha']) });
        const { contextId } = first.body.task as Task;
        const second = await post(`${tasks}?wait=5`, { input: 'beta', contextId });
        expect(second.body.task.output).toBe(heard(['alpha', 'beta']));
      });

      it('pauses for the approval of a tool and, denied, does not book', async () => {
        const first = await post(`${tasks}?wait=5`, { input: BOOKING.prompt });
        expect(first.body.task.status).toBe('input-required');
        const { id } = first.body.task as Task;
        const second = await post(`${tasks}/${id}/messages?wait=5`, { input: 'no' });
        expect(second.body.task).toMatchObject({ status: 'completed', output: BOOKING.denied });
      });

      it('aborts the model when the task is canceled', async () => {
        const created = await post(tasks, { input: HANG.prompt });
        const { id } = created.body.task as Task;
        const events = await request(`${tasks}/${id}/events?lastEventId=0`);
        await cancelOnceWaiting(events, () => post(`${tasks}/${id}/cancel`, {}));
        const read = (await (await request(`${tasks}/${id}`)).json()) as Json;
        expect(read.task.status).toBe('canceled');
      });
    });

    describe.each(FLAVOURS)('A2A, the official client over $binding $version', (flavour) => {
      const client = (): Promise<Client> =>
        officialClient(`${gateway.url}/a2a/${NAME}/.well-known/agent-card.json`, flavour);

      it('streams the answer, its tool call as a working status', async () => {
        const events = await collect((await client()).sendMessageStream(send(WEATHER.prompt)));
        expect(streamedOutput(events)).toBe(WEATHER.answer);
        const progress = events.flatMap(({ payload }) =>
          payload?.$case === 'statusUpdate' ? (payload.value.status?.message?.parts ?? []) : [],
        );
        const data = progress.flatMap((part) =>
          part.content?.$case === 'data' ? [JSON.stringify(part.content.value)] : [],
        );
        expect(data.some((value) => value.includes('tool-call') && value.includes('weather'))).toBe(
          true,
        );
        const last = events.at(-1)?.payload;
        expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(
          TaskState.TASK_STATE_COMPLETED,
        );
      });

      it('keeps the history of a conversation continued by contextId', async () => {
        const sdk = await client();
        const first = (await sdk.sendMessage(send('one'))) as A2ATask;
        expect(outputOf(first)).toBe(heard(['one']));
        const second = (await sdk.sendMessage(
          send('two', { contextId: first.contextId }),
        )) as A2ATask;
        expect(outputOf(second)).toBe(heard(['one', 'two']));
      });

      it('pauses for the approval of a tool and resumes once approved', async () => {
        const sdk = await client();
        const first = (await sdk.sendMessage(send(BOOKING.prompt))) as A2ATask;
        expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
        expect(questionOf(first)).toContain('book');
        const ids = { taskId: first.id, contextId: first.contextId };
        const second = (await sdk.sendMessage(send('yes', ids))) as A2ATask;
        expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(outputOf(second)).toBe(BOOKING.approved);
      });

      it('aborts the model when the task is canceled', async () => {
        const sdk = await client();
        const before = scripted.abortsSeen();
        let taskId = '';
        for await (const { payload } of sdk.sendMessageStream(send(HANG.prompt))) {
          let text = '';
          if (payload?.$case === 'task') {
            taskId = payload.value.id;
            text = outputOf(payload.value);
          }
          if (payload?.$case === 'artifactUpdate') {
            text = outputOf({ artifacts: [payload.value.artifact] } as A2ATask);
          }
          if (text.includes(HANG.first)) break;
        }
        const canceled = await sdk.cancelTask({ tenant: '', id: taskId, metadata: undefined });
        expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
        await eventually(() => scripted.abortsSeen() > before, "the model's signal aborted");
      });
    });

    describe('OpenAI Agents compatibility', () => {
      it('streams the answer with its tool call, and lists the call in a JSON run', async () => {
        const response = await stream('/compat/runs', {
          agent_name: NAME,
          input: WEATHER.prompt,
          stream: true,
        });
        const events = await readEvents(response);
        expectWeatherEvents(events);
        const run = await post('/compat/runs', { agent_name: NAME, input: WEATHER.prompt });
        expect(run.body.output).toBe(WEATHER.answer);
        expect(run.body.tool_calls).toMatchObject([{ name: WEATHER.tool }]);
      });

      it('keeps the history of a conversation continued by conversation_id', async () => {
        const first = await post('/compat/runs', { agent_name: NAME, input: 'red' });
        expect(first.body.output).toBe(heard(['red']));
        const { conversation_id } = first.body;
        const second = await post('/compat/runs', {
          agent_name: NAME,
          input: 'green',
          conversation_id,
        });
        expect(second.body.output).toBe(heard(['red', 'green']));
      });

      it('pauses for the approval of a tool as an interruption, resumed once approved', async () => {
        const first = await post('/compat/runs', { agent_name: NAME, input: BOOKING.prompt });
        expect(first.body.interruption.question).toContain('book');
        const { conversation_id } = first.body;
        const second = await post('/compat/runs', {
          agent_name: NAME,
          input: 'yes',
          conversation_id,
        });
        expect(second.body.output).toBe(BOOKING.approved);
        expect(second.body.interruption).toBeUndefined();
      });

      it("aborts the model when the streamed run's task is canceled", async () => {
        const response = await stream('/compat/runs', {
          agent_name: NAME,
          input: HANG.prompt,
          stream: true,
        });
        // The compat routes have no cancel of their own: a streamed run is a task of the store.
        const id = response.headers.get('content-location')?.split('/').at(-2);
        await cancelOnceWaiting(response, () => post(`/agents/${NAME}/tasks/${id}/cancel`, {}));
      });
    });
  });
}
