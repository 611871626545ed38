// The servers of the framework-adapter scenario (issue 34), loaded only by their own processes:
// the mock AI SDK agent as an AgentPort agent (`fromAiSdk`), served the AI SDK's own way on a bare
// Hono route, and the same model in a Mastra agent on Mastra's Hono server.
import { fromAiSdk } from '@agentport/ai-sdk';
import type { Agent } from '@agentport/core';
import type { MastraModelConfig } from '@mastra/core/llm';
import {
  createMockAgent,
  createMockModel,
  MOCK_TOOL_NAME,
  weatherInputSchema,
  weatherOf,
  weatherTool,
} from './mock-agent.ts';
import { ADAPTER_AGENT, AI_SDK_ROUTE } from './scenarios.ts';

/** The mock AI SDK agent wrapped by `@agentport/ai-sdk`'s `fromAiSdk`, for the gateway. */
export async function createAdaptedAgent(): Promise<Agent> {
  return fromAiSdk(createMockAgent(), { description: 'Tells the weather' });
}

async function serveOnNode(fetch: (request: Request) => Response | Promise<Response>) {
  const { serve } = await import('@hono/node-server');
  return new Promise<number>((resolve) => {
    serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
  });
}

/**
 * The AI SDK's own way: a bare Hono app on `@hono/node-server` whose `POST /api/chat` takes
 * `{ input }`, calls `agent.stream({ prompt: input })` and answers with
 * `result.toUIMessageStreamResponse()` (the UI message stream, SSE).
 */
export async function startAiSdkHono(): Promise<number> {
  const { Hono } = await import('hono');
  const agent = createMockAgent();
  const app = new Hono();
  app.post(AI_SDK_ROUTE, async (context) => {
    const { input } = await context.req.json<{ input: string }>();
    const result = await agent.stream({ prompt: input, abortSignal: context.req.raw.signal });
    return result.toUIMessageStreamResponse();
  });
  return serveOnNode(app.fetch);
}

/**
 * Mastra's way: a Mastra `Agent` on the same mock model and tool, in a `Mastra` instance mounted
 * on a Hono app by `@mastra/hono`'s `MastraServer` (on `@hono/node-server`), streamed by
 * `POST /api/agents/weather/stream` with `{ messages }`. Mastra's telemetry is switched off first.
 */
export async function startMastraHono(): Promise<number> {
  // Read by Mastra on every event it would send (to PostHog): nothing may leave loopback.
  process.env.MASTRA_TELEMETRY_DISABLED = '1';
  const [{ Agent }, { Mastra }, { createTool }, { MastraServer }, { Hono }] = await Promise.all([
    import('@mastra/core/agent'),
    import('@mastra/core/mastra'),
    import('@mastra/core/tools'),
    import('@mastra/hono'),
    import('hono'),
  ]);
  const weather = createTool({
    id: MOCK_TOOL_NAME,
    description: weatherTool.description as string,
    inputSchema: weatherInputSchema,
    execute: weatherOf,
  });
  const agent = new Agent({
    id: ADAPTER_AGENT,
    name: ADAPTER_AGENT,
    instructions: 'Tells the weather',
    // Mastra types the model against its bundled copy of @ai-sdk/provider (4.0.17), which the
    // mock of ai 7.0.173 (on 4.0.38) does not match in TypeScript only; Mastra runs it as a v4 model.
    model: createMockModel() as unknown as MastraModelConfig,
    tools: { [MOCK_TOOL_NAME]: weather },
  });
  const mastra = new Mastra({ agents: { [ADAPTER_AGENT]: agent } });
  const app = new Hono();
  await new MastraServer({ app, mastra }).init();
  return serveOnNode(app.fetch);
}
