import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentCard, Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';
import { Hono } from 'hono';

/** Events per benchmark SSE stream: nine text deltas and `done`, as the gateway's echo sends. */
export const EVENTS_PER_STREAM = 10;

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** The answers `writeTogether` holds until the end of the event loop's turn. */
let dueAnswers: (() => void)[] = [];

/**
 * Writes an answer once Node has read every request ready in this turn of the event loop, with
 * the turn's other answers (`setImmediate`), as the gateway's Node fast paths do.
 */
function writeTogether(answer: () => void): void {
  if (dueAnswers.length === 0) {
    setImmediate(() => {
      const answers = dueAnswers;
      dueAnswers = [];
      for (const each of answers) each();
    });
  }
  dueAnswers.push(answer);
}

function sse(event: string, id: number, data: unknown): string {
  return `event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The ceiling: a hand-written node:http server. `POST /invoke` parses `{input}` and answers
 * `{output}` (`POST /invoke-together` the same, written as the gateway writes its answers);
 * `POST /tasks` answers as `POST /tasks?wait` does for a task completed at once (nothing stored);
 * `POST /stream` streams the input back word by word as SSE (text deltas, then done);
 * `POST /idle` sends one event and then nothing for a minute.
 */
function rawHandler(request: IncomingMessage, response: ServerResponse): void {
  readBody(request).then(
    (text) => {
      let input: string;
      try {
        input = String((JSON.parse(text) as { input: unknown }).input);
      } catch {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end('{"error":"invalid JSON"}');
        return;
      }
      if (request.url === '/tasks') {
        // The answer of POST /tasks?wait for a task that completed at once (201, Location, the
        // task), with nothing stored: what the route's answer alone costs.
        const id = randomUUID();
        const at = new Date().toISOString();
        const body = JSON.stringify({
          task: {
            id,
            agentName: 'echo',
            status: 'completed',
            input,
            metadata: {},
            createdAt: at,
            updatedAt: at,
            output: input,
          },
        });
        response.writeHead(201, {
          'content-type': 'application/json',
          location: `/tasks/${id}`,
          'content-length': Buffer.byteLength(body),
        });
        response.end(body);
        return;
      }
      if (request.url === '/invoke' || request.url === '/invoke-together') {
        const body = JSON.stringify({ output: input });
        const answer = () => {
          response.writeHead(200, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          });
          response.end(body);
        };
        if (request.url === '/invoke') answer();
        else writeTogether(answer);
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (request.url === '/idle') {
        response.write(sse('text-delta', 1, { delta: 'tick 1' }));
        const timer = setTimeout(() => response.end(), 60_000);
        response.on('close', () => clearTimeout(timer));
        return;
      }
      let id = 0;
      for (const delta of input.split(/(?<=\S)(?=\s)/)) {
        id += 1;
        response.write(sse('text-delta', id, { delta }));
      }
      response.end(sse('done', id + 1, { output: input }));
    },
    () => response.destroy(),
  );
}

/** Listens on 127.0.0.1, a free port; resolves with it. */
export function listenOn(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

/** Starts the raw node:http anchor on 127.0.0.1 and resolves with its port. */
export function startRaw(): Promise<number> {
  return listenOn(createServer(rawHandler));
}

/** Starts a bare Hono app (one JSON echo route) on @hono/node-server, for reference. */
export async function startHono(): Promise<number> {
  const { serve } = await import('@hono/node-server');
  const app = new Hono();
  app.post('/invoke', async (context) => {
    const { input } = await context.req.json<{ input: string }>();
    return context.json({ output: input });
  });
  return new Promise((resolve) => {
    serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
  });
}

function textOf(parts: readonly { content?: { $case: string; value: unknown } }[]): string {
  return parts
    .map((part) => (part.content?.$case === 'text' ? String(part.content.value) : ''))
    .join('\n');
}

const now = () => new Date().toISOString();

/** The echo agent the official way: a Task (working, one artifact, completed). */
/** The SDK's echo executor answering with a Task. */
export const taskEchoExecutor: AgentExecutor = {
  async execute(context, bus) {
    const { taskId, contextId } = context;
    const text = textOf(context.userMessage.parts);
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
        artifacts: [],
        history: [context.userMessage],
        metadata: undefined,
      }),
    );
    const status = (state: TaskState) =>
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state, message: undefined, timestamp: now() },
        metadata: undefined,
      });
    bus.publish(status(TaskState.TASK_STATE_WORKING));
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: 'output',
          name: 'output',
          description: '',
          parts: [
            {
              content: { $case: 'text', value: text },
              mediaType: 'text/plain',
              filename: '',
              metadata: undefined,
            },
          ],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(status(TaskState.TASK_STATE_COMPLETED));
  },
  async cancelTask() {},
};

/** The echo agent answering with a Message (no task). */
const messageEchoExecutor: AgentExecutor = {
  async execute(context, bus) {
    bus.publish(
      AgentEvent.message({
        messageId: crypto.randomUUID(),
        contextId: context.contextId,
        taskId: '',
        role: Role.ROLE_AGENT,
        parts: [
          {
            content: { $case: 'text', value: textOf(context.userMessage.parts) },
            mediaType: 'text/plain',
            filename: '',
            metadata: undefined,
          },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      }),
    );
  },
  async cancelTask() {},
};

/** The echo agent's card at a JSON-RPC url. */
export function card(url: string): AgentCard {
  return {
    name: 'Echo',
    description: 'Echoes its input',
    version: '1.0.0',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
}

/**
 * The official setup: @a2a-js/sdk on Express 5, `DefaultRequestHandler` with the SDK's
 * `InMemoryTaskStore`, JSON-RPC at `/task/jsonrpc` (answers through a Task) and
 * `/message/jsonrpc` (answers with a Message).
 */
export async function startSdkExpress(): Promise<number> {
  const app = express();
  const server = createServer(app);
  const port = await listenOn(server);
  for (const [name, executor] of [
    ['task', taskEchoExecutor],
    ['message', messageEchoExecutor],
  ] as const) {
    const handler = new DefaultRequestHandler(
      card(`http://127.0.0.1:${port}/${name}/jsonrpc`),
      new InMemoryTaskStore(),
      executor,
    );
    app.use(
      `/${name}/jsonrpc`,
      jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
    );
  }
  return port;
}
