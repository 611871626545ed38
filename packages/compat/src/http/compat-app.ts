import {
  jsonErrorHandler,
  jsonNotFoundHandler,
  limitBody,
  methodNotAllowed,
  parseJsonBody,
  streamSSE,
  writeAgentEvents,
} from '@agentport/http';
import { Hono } from 'hono';
import { runRequestSchema } from '../definitions.ts';
import type { Runner } from '../runner.ts';

/** Options of {@link createCompatApp}. */
export interface CompatAppOptions {
  /** The runner whose agents the app serves. */
  runner: Runner;
  /** The largest accepted request body, in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Idle time before an SSE `: heartbeat` comment, in milliseconds; 0 disables (default 15 s). */
  heartbeatMs?: number;
  /** Aborting it ends open run streams with a final `shutting_down` error event. */
  shutdownSignal?: AbortSignal;
}

/**
 * Creates the Hono app of the compat surface: `GET /agents`, `GET /agents/{name}` and
 * `POST /runs` (JSON, or SSE when `stream` is true), with the shared JSON error body.
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
    const request = await parseJsonBody(context, runRequestSchema);
    if (request.stream !== true) {
      return context.json(
        await runner.run({ ...request, stream: false }, { signal: context.req.raw.signal }),
      );
    }
    // Resolve the agent before the stream starts, so an unknown one is a plain 404.
    const controller = new AbortController();
    const events = runner.run({ ...request, stream: true }, { signal: controller.signal });
    return streamSSE(
      context,
      async (writer) => {
        if (writer.signal.aborted) controller.abort();
        writer.signal.addEventListener('abort', () => controller.abort(), { once: true });
        await writeAgentEvents(events, writer, request.agent_name);
      },
      streamOptions,
    );
  });
  app.all('/runs', methodNotAllowed(['POST']));

  return app;
}
