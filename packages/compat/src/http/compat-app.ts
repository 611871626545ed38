import {
  type ConversationStore,
  createMemoryConversationStore,
  createMemoryTaskStore,
  type TaskStore,
} from '@agentport/core';
import {
  jsonErrorHandler,
  jsonNotFoundHandler,
  limitBody,
  methodNotAllowed,
  parseJsonBody,
} from '@agentport/http';
import { DEFAULT_STREAM_RETAIN_MS, StreamRuns } from '@agentport/http/internal';
import { Hono } from 'hono';
import { checkedRunRequestSchema } from '../definitions.ts';
import type { Runner } from '../runner.ts';
import { rejoinRun, streamRun } from './compat-stream.ts';

/** How long a streamed run nobody reads goes on before its task is canceled, by default. */
const DEFAULT_REJOIN_GRACE_MS = 10_000;

/** Options of {@link createCompatApp}. */
export interface CompatAppOptions {
  /** The runner whose agents the app serves. */
  runner: Runner;
  /** The largest accepted request body, in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Idle time before an SSE `: heartbeat` comment, in milliseconds; 0 disables (default 15 s). */
  heartbeatMs?: number;
  /** Aborting it ends open run streams with a final `shutting_down` error event and cancels their runs. */
  shutdownSignal?: AbortSignal;
  /**
   * The store whose tasks the streamed runs are (default the runner's `store`, else a new
   * in-memory store): the runner's, so a pause of either kind of run can be answered by the other.
   */
  store?: TaskStore;
  /**
   * Where streamed runs' conversations live (default the runner's `conversations`, else a new
   * in-memory store): the runner's, so both kinds of run share their conversations.
   */
  conversations?: ConversationStore;
  /**
   * How long a streamed run goes on once its caller left, for a rejoin to pick it up, before its
   * task is canceled and its agent aborted, in milliseconds (default 10 s).
   */
  rejoinGraceMs?: number;
  /**
   * How long a streamed run's task is kept once finished, in milliseconds: its own retention in
   * the store, apart from the store's other tasks (default 10 minutes).
   */
  streamRetentionMs?: number;
}

/** The stream runs of an app: a store listener, and their cancel on shutdown. */
function streamRunsOf(options: CompatAppOptions): StreamRuns {
  const closing = options.shutdownSignal ?? new AbortController().signal;
  const { runner } = options;
  const runs = new StreamRuns(
    options.store ?? runner.store ?? createMemoryTaskStore(),
    options.rejoinGraceMs ?? DEFAULT_REJOIN_GRACE_MS,
    closing,
    options.streamRetentionMs ?? DEFAULT_STREAM_RETAIN_MS,
    {
      conversations:
        options.conversations ?? runner.conversations ?? createMemoryConversationStore(),
    },
  );
  // After the abort's other listeners: open streams end with `shutting_down` before their cancel.
  const close = (): void => queueMicrotask(() => runs.close());
  if (closing.aborted) close();
  else closing.addEventListener('abort', close, { once: true });
  return runs;
}

/**
 * Creates the Hono app of the compat surface: `GET /agents`, `GET /agents/{name}`, `POST /runs`
 * (JSON, or SSE when `stream` is true: a task of `store`, rejoined at `GET /runs/{id}/stream`
 * with `Last-Event-ID`), with the shared JSON error body.
 *
 * @example
 * const app = new Hono();
 * app.route('/compat', createCompatApp({ runner: createRunner({ agents: [createAssistantAgent()] }) }));
 */
export function createCompatApp(options: CompatAppOptions): Hono {
  const { runner } = options;
  const streamOptions = {
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(options.shutdownSignal === undefined ? {} : { shutdownSignal: options.shutdownSignal }),
  };
  const runs = streamRunsOf(options);
  const app = new Hono();
  app.onError(jsonErrorHandler);
  app.notFound(jsonNotFoundHandler);

  app.get('/agents', (context) => context.json(runner.listAgents()));
  app.all('/agents', methodNotAllowed(['GET', 'HEAD']));
  app.get('/agents/:name', (context) =>
    context.json(runner.getAgentDef(context.req.param('name'))),
  );
  app.all('/agents/:name', methodNotAllowed(['GET', 'HEAD']));

  app.post('/runs', limitBody(options.maxBodyBytes), async (context) => {
    const { request, parsed } = await parseJsonBody(context, checkedRunRequestSchema);
    if (parsed.stream !== true) {
      return context.json(
        await runner.run({ ...request, stream: false }, { signal: context.req.raw.signal }),
      );
    }
    return streamRun(context, runs, runner, { request, parsed }, streamOptions);
  });
  app.all('/runs', methodNotAllowed(['POST']));
  app.get('/runs/:id/stream', (context) => rejoinRun(context, runs, runner, streamOptions));
  app.all('/runs/:id/stream', methodNotAllowed(['GET', 'HEAD']));

  return app;
}
