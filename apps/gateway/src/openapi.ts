import type { Hono } from 'hono';
import * as z from 'zod';

/** What the gateway knows about one route beyond its method and path. */
export interface RouteDoc {
  summary: string;
  tag: string;
  /** The zod schema that validates the JSON body, when the route takes one. */
  body?: z.ZodType;
  /** Whether it can answer with Server-Sent Events; `'only'` when a success always is a stream. */
  sse?: boolean | 'only';
  /** The media type of its JSON answers, when not `application/json` (errors included). */
  jsonMediaTypes?: string[];
  /** The media type of a successful answer that is neither JSON nor a stream (a web page). */
  mediaType?: string;
  /** The status of a successful answer (default 200). */
  status?: number;
  /** The JSON Schema of a successful JSON answer, when documented. */
  responseSchema?: Record<string, unknown>;
  /** The zod schema of the query parameters it reads, when it reads any. */
  query?: z.ZodObject;
  /** The JSON Schema of its error bodies, when not AgentPort's `{ error: { code, message } }`. */
  errorSchema?: Record<string, unknown>;
  /** Error statuses worth naming beside the `default` error answer, with what each means. */
  errorStatuses?: Record<number, string>;
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

/** A parameter pattern that is one literal segment (`message:send`). */
const LITERAL = /^[\w:.-]+$/;
/** A parameter pattern of one segment with a literal ending (`[^/]+:cancel`). */
const SEGMENT_WITH_SUFFIX = /^\[\^\/\]\+([\w:.-]+)$/;

/**
 * Turns a Hono path into an OpenAPI path: `/agents/:name{.+}/invoke` into `/agents/{name}/invoke`;
 * a parameter whose pattern is a literal (`/:action{message:send}`) into that literal
 * (`/message:send`), and one with a literal ending (`/tasks/:taskId{[^/]+:cancel}`) into the
 * parameter and the ending (`/tasks/{taskId}:cancel`).
 */
export function toOpenApiPath(path: string): string {
  return path.replace(/:(\w+)(?:\{([^}]*)\})?\??/g, (_match, name: string, pattern?: string) => {
    if (pattern === undefined) return `{${name}}`;
    if (LITERAL.test(pattern)) return pattern;
    const ending = SEGMENT_WITH_SUFFIX.exec(pattern)?.[1];
    return ending === undefined ? `{${name}}` : `{${name}}${ending}`;
  });
}

type ObjectJsonSchema = {
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
};

/**
 * The query parameters of an operation, from the zod schema that parses them. A parameter read
 * as a number (a decimal string turned into one) is documented as the number it must be, with its
 * range (`integer`, 1 to 100), which its string pattern alone cannot say.
 */
function queryParameters(schema: z.ZodObject): Array<Record<string, unknown>> {
  const input = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as ObjectJsonSchema;
  const output = z.toJSONSchema(schema, {
    io: 'output',
    unrepresentable: 'any',
  }) as ObjectJsonSchema;
  return Object.entries(input.properties ?? {}).map(([name, property]) => {
    const parsed = output.properties?.[name];
    const numeric = parsed?.type === 'number' || parsed?.type === 'integer';
    return {
      name,
      in: 'query',
      required: input.required?.includes(name) ?? false,
      schema: property.type === 'string' && numeric ? parsed : property,
    };
  });
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

/** The document-wide parts of an OpenAPI document: its title, version, security and server. */
export interface OpenApiInfo {
  title: string;
  version: string;
  securityScheme: boolean;
  /** Whether an operation's path is public when `securityScheme` is on. */
  isPublic?: (path: string) => boolean;
  /**
   * The path the routes are served under behind a proxy (`/gw`): the document's one server, so
   * tools reach the operations under it. Empty or absent: no `servers` (the default, `/`).
   */
  serverPath?: string;
}

/** The parameters of an operation: those of its path, then those of its query. */
function operationParameters(openApiPath: string, doc: RouteDoc): Array<Record<string, unknown>> {
  return [
    ...[...openApiPath.matchAll(/\{(\w+)\}/g)].map((match) => ({
      name: match[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    })),
    ...(doc.query === undefined ? [] : queryParameters(doc.query)),
  ];
}

/** The content of an operation's success answer: a page, JSON or a stream, as the route says. */
function successContent(doc: RouteDoc, jsonTypes: readonly string[]): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  if (doc.mediaType !== undefined) content[doc.mediaType] = { schema: { type: 'string' } };
  else if (doc.sse !== 'only') {
    for (const type of jsonTypes) content[type] = { schema: doc.responseSchema ?? {} };
  }
  if (doc.sse) content['text/event-stream'] = { schema: { type: 'string' } };
  return content;
}

/** An operation's answers: its success, the error statuses it names, and the default error. */
function operationResponses(doc: RouteDoc): Record<string, unknown> {
  const jsonTypes = doc.jsonMediaTypes ?? ['application/json'];
  const failure = { schema: doc.errorSchema ?? errorSchema };
  const failureContent = () => Object.fromEntries(jsonTypes.map((type) => [type, failure]));
  return {
    [String(doc.status ?? 200)]: {
      description: 'Success',
      content: successContent(doc, jsonTypes),
    },
    ...Object.fromEntries(
      Object.entries(doc.errorStatuses ?? {}).map(([status, description]) => [
        status,
        { description, content: failureContent() },
      ]),
    ),
    default: { description: 'Error', content: failureContent() },
  };
}

/** The OpenAPI operation of one route, at its OpenAPI path, from its documentation. */
function describeOperation(
  openApiPath: string,
  doc: RouteDoc,
  info: OpenApiInfo,
): Record<string, unknown> {
  const parameters = operationParameters(openApiPath, doc);
  const operation: Record<string, unknown> = {
    summary: doc.summary,
    tags: [doc.tag],
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: operationResponses(doc),
    // Public routes need no key even when the document's default security asks for one.
    ...(info.securityScheme && info.isPublic?.(openApiPath) ? { security: [] } : {}),
  };
  if (doc.body !== undefined) {
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema: z.toJSONSchema(doc.body, { io: 'input' }) } },
    };
  }
  return operation;
}

/** The document's security: a bearer token or an `X-API-Key` header, either one. */
const SECURITY = {
  components: {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer' },
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    },
  },
  security: [{ bearer: [] }, { apiKey: [] }],
};

/**
 * Generates an OpenAPI 3.1 document of the given routes (those of the app, see {@link listRoutes}), with request bodies converted from
 * the same zod schemas that validate them and the success answers their routes document.
 */
export function createOpenApiDocument(
  routes: ReadonlyArray<{ method: string; path: string }>,
  describe: RouteDocLookup,
  info: OpenApiInfo,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, path } of routes) {
    const openApiPath = toOpenApiPath(path);
    const operation = describeOperation(openApiPath, describe(method, openApiPath), info);
    paths[openApiPath] ??= {};
    (paths[openApiPath] as Record<string, unknown>)[method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version },
    ...(info.serverPath ? { servers: [{ url: info.serverPath }] } : {}),
    paths,
    ...(info.securityScheme ? structuredClone(SECURITY) : {}),
  };
}
