import type { Hono } from 'hono';
import * as z from 'zod';

/** What the gateway knows about one route beyond its method and path. */
export interface RouteDoc {
  summary: string;
  tag: string;
  /** The zod schema that validates the JSON body, when the route takes one. */
  body?: z.ZodType;
  /** Whether it can answer with Server-Sent Events. */
  sse?: boolean;
}

/** Finds the documentation of a route from its method and OpenAPI path. */
export type RouteDocLookup = (method: string, path: string) => RouteDoc;

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
  },
};

/** Turns a Hono path (`/agents/:name{.+}/invoke`) into an OpenAPI path (`/agents/{name}/invoke`). */
export function toOpenApiPath(path: string): string {
  return path.replace(/:(\w+)(?:\{[^}]*\})?\??/g, '{$1}');
}

/** The method/path pairs an app answers (middleware and catch-all 405 handlers left out). */
export function listRoutes(app: Hono): Array<{ method: string; path: string }> {
  const seen = new Set<string>();
  const routes: Array<{ method: string; path: string }> = [];
  for (const route of app.routes) {
    if (route.method === 'ALL' || route.path.endsWith('*')) continue;
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    routes.push({ method: route.method, path: route.path });
  }
  return routes;
}

/**
 * Generates an OpenAPI 3.1 document of the given routes (those of the app, see {@link listRoutes}), with request bodies converted from
 * the same zod schemas that validate them.
 */
export function createOpenApiDocument(
  routes: ReadonlyArray<{ method: string; path: string }>,
  describe: RouteDocLookup,
  info: { title: string; version: string; securityScheme: boolean },
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, path } of routes) {
    const openApiPath = toOpenApiPath(path);
    const doc = describe(method, openApiPath);
    const parameters = [...openApiPath.matchAll(/\{(\w+)\}/g)].map((match) => ({
      name: match[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const content: Record<string, unknown> = { 'application/json': { schema: {} } };
    if (doc.sse) content['text/event-stream'] = { schema: { type: 'string' } };
    const operation: Record<string, unknown> = {
      summary: doc.summary,
      tags: [doc.tag],
      ...(parameters.length > 0 ? { parameters } : {}),
      responses: {
        '200': { description: 'Success', content },
        default: {
          description: 'Error',
          content: { 'application/json': { schema: errorSchema } },
        },
      },
    };
    if (doc.body !== undefined) {
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: z.toJSONSchema(doc.body, { io: 'input' }) } },
      };
    }
    paths[openApiPath] ??= {};
    (paths[openApiPath] as Record<string, unknown>)[method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version },
    paths,
    ...(info.securityScheme
      ? {
          components: {
            securitySchemes: {
              bearer: { type: 'http', scheme: 'bearer' },
              apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
            },
          },
          security: [{ bearer: [] }, { apiKey: [] }],
        }
      : {}),
  };
}
