import {
  createTaskRequestSchema,
  listTasksQuerySchema,
  sendMessageRequestSchema,
  waitQuerySchema,
} from '@agentport/a2a-http';
import { runRequestSchema } from '@agentport/compat';
import { invokeRequestSchema } from '@agentport/rest-sse';
import * as z from 'zod';
import {
  AGENT_CARD,
  AGENT_DEF,
  AGENT_DEF_LIST,
  AGENT_LIST,
  AGENT_SUMMARY,
  INVOKE_ANSWER,
  READINESS,
  RUN_RESPONSE,
  SDK_LIST_TASKS_QUERY,
  SDK_LIST_TASKS_QUERY_WITH_TENANT,
  TASK_ANSWER,
  TASK_PAGE,
} from './answer-schemas.ts';
import type { RouteDoc } from './openapi.ts';

/** The query of the root SDK card: `?agent={name}` answers that agent's card. */
export const rootCardQuerySchema = z.object({
  agent: z
    .string()
    .min(1, 'must not be empty')
    .optional()
    .describe("The agent whose card to answer (default: the gateway's default agent)"),
});

/**
 * The query of `GET .../tasks/{id}/events`: `lastEventId`, for clients that cannot send the
 * `Last-Event-ID` header (which wins when both are sent; the a2a-http route parses them).
 */
const taskEventsQuerySchema = z.object({
  lastEventId: z
    .string()
    .regex(/^(?:0|[1-9]\d{0,15})$/)
    .optional()
    .describe(
      'Resume after this event id (a sequence number of the task), as the Last-Event-ID header does',
    ),
});

interface Rule {
  method: string;
  path: RegExp;
  doc: RouteDoc;
}

/** The A2A HTTP+JSON binding's errors (v1.0): google.rpc-style statuses. */
const GOOGLE_RPC_ERROR = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'status', 'message'],
      properties: {
        code: { type: 'integer' },
        status: { type: 'string' },
        message: { type: 'string' },
        details: { type: 'array' },
      },
    },
  },
};

/** The v0.3 HTTP+JSON binding's errors: a JSON-RPC code and a message. */
const LEGACY_REST_ERROR = {
  type: 'object',
  required: ['code', 'message'],
  properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
};

/** A JSON-RPC 2.0 error response (most are answered with HTTP 200). */
const JSON_RPC_ERROR = {
  type: 'object',
  required: ['jsonrpc', 'id', 'error'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer', 'null'] },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
    },
  },
};

const A2A = 'A2A (hand-rolled)';
/** The media type of the A2A v1.0 HTTP+JSON binding's answers. */
const A2A_JSON = 'application/a2a+json';
const SDK = 'A2A (official SDK)';
const PREFIX = '(?:/agents/[^/]+)?';

const RULES: Rule[] = [
  {
    method: 'GET',
    path: /^\/$/,
    doc: { summary: 'Index of the agents and their URLs', tag: 'Operations' },
  },
  {
    method: 'GET',
    path: /^\/healthz$/,
    doc: { summary: 'Liveness: the process is up', tag: 'Operations' },
  },
  {
    method: 'GET',
    path: /^\/readyz$/,
    doc: {
      summary: 'Readiness: ready, or degraded while a remote agent is unavailable',
      tag: 'Operations',
      responseSchema: READINESS,
      errorStatuses: {
        503: 'shutting_down while shutting down; remote_unavailable while a remote agent is unavailable and the config sets requireRemotes',
      },
    },
  },
  {
    method: 'GET',
    path: /^\/openapi\.json$/,
    doc: { summary: 'This OpenAPI document', tag: 'Operations' },
  },
  {
    method: 'GET',
    path: /^\/docs$/,
    doc: { summary: 'This document as a web page', tag: 'Operations', mediaType: 'text/html' },
  },
  {
    method: 'GET',
    path: new RegExp(`^${PREFIX}/\\.well-known/agent\\.json$`),
    doc: { summary: 'Agent Card', tag: A2A, responseSchema: AGENT_CARD },
  },
  {
    method: 'POST',
    path: new RegExp(`^${PREFIX}/tasks$`),
    doc: {
      summary:
        'Create a task (201), or answer the task of contextId waiting for input (200); ?wait=SECONDS also waits for it (to its end or its pause)',
      tag: A2A,
      body: createTaskRequestSchema,
      status: 201,
      query: waitQuerySchema,
      responseSchema: TASK_ANSWER,
    },
  },
  {
    method: 'GET',
    path: new RegExp(`^${PREFIX}/tasks$`),
    doc: {
      summary: 'List tasks (limit, cursor, status)',
      tag: A2A,
      query: listTasksQuerySchema,
      responseSchema: TASK_PAGE,
    },
  },
  {
    method: 'GET',
    path: new RegExp(`^${PREFIX}/tasks/\\{id\\}$`),
    doc: {
      summary: 'Get a task; ?wait=SECONDS long-polls until it is terminal',
      tag: A2A,
      query: waitQuerySchema,
      responseSchema: TASK_ANSWER,
    },
  },
  {
    method: 'GET',
    path: new RegExp(`^${PREFIX}/tasks/\\{id\\}/events$`),
    doc: {
      summary:
        "Stream the task's events (SSE, id = the task's sequence number): the task, then each later event of its log; with Last-Event-ID (or ?lastEventId) N, the events after N",
      tag: A2A,
      sse: 'only',
      query: taskEventsQuerySchema,
      errorStatuses: {
        400: 'invalid_input when the Last-Event-ID is not a number; events_ahead when it is beyond the last event of the task',
        404: 'task_not_found: no such task for this agent',
        410: "events_expired when retention dropped the events after it (rejoin without one for the task's snapshot)",
      },
    },
  },
  {
    method: 'POST',
    path: new RegExp(`^${PREFIX}/tasks/\\{id\\}/messages$`),
    doc: {
      summary:
        'Answer a task waiting for input (input-required): it runs again with the message; ?wait=SECONDS also waits for it',
      tag: A2A,
      body: sendMessageRequestSchema,
      query: waitQuerySchema,
      responseSchema: TASK_ANSWER,
      errorStatuses: {
        404: 'task_not_found: no such task for this agent',
        409: 'task_not_waiting: the task is not waiting for input (finished, or running)',
      },
    },
  },
  {
    method: 'POST',
    path: new RegExp(`^${PREFIX}/tasks/\\{id\\}/cancel$`),
    doc: { summary: 'Cancel a task (409 when finished)', tag: A2A, responseSchema: TASK_ANSWER },
  },
  {
    method: 'GET',
    path: /^\/agents$/,
    doc: { summary: 'List the REST/SSE agents', tag: 'REST/SSE', responseSchema: AGENT_LIST },
  },
  {
    method: 'GET',
    path: /^\/agents\/[^/]+$/,
    doc: { summary: 'Describe one agent', tag: 'REST/SSE', responseSchema: AGENT_SUMMARY },
  },
  {
    method: 'POST',
    path: /^\/agents\/.+\/invoke$/,
    doc: {
      summary:
        'Run one turn of a conversation: the answer, or the question when the agent pauses (send contextId or taskId back to answer it)',
      tag: 'REST/SSE',
      body: invokeRequestSchema,
      responseSchema: INVOKE_ANSWER,
    },
  },
  {
    method: 'POST',
    path: /^\/agents\/.+\/stream$/,
    doc: {
      summary:
        "Run the agent and stream its events (a task: SSE id = the task's sequence number; Content-Location names where the stream is rejoined)",
      tag: 'REST/SSE',
      body: invokeRequestSchema,
      sse: 'only',
    },
  },
  {
    method: 'GET',
    path: /^\/agents\/[^/]+\/tasks\/\{id\}\/stream$/,
    doc: {
      summary:
        'Rejoin a stream (its Content-Location): the events after Last-Event-ID (or ?lastEventId) N, then live to its end, as POST .../stream sends them',
      tag: 'REST/SSE',
      sse: 'only',
      query: taskEventsQuerySchema,
      errorStatuses: {
        400: 'invalid_input when the Last-Event-ID is not a number; events_ahead when it is beyond the last event of the task',
        404: 'task_not_found: no such task for this agent',
        410: 'events_expired when retention dropped the events after it',
      },
    },
  },
  {
    method: 'GET',
    path: /^\/\.well-known\/agent-card\.json$/,
    doc: {
      summary: 'A2A AgentCard of the default agent, or of ?agent={name}',
      tag: SDK,
      query: rootCardQuerySchema,
    },
  },
  {
    method: 'GET',
    path: /^\/a2a\/[^/]+\/\.well-known\/agent-card\.json$/,
    doc: { summary: 'A2A AgentCard', tag: SDK },
  },
  {
    method: 'POST',
    path: /^\/a2a\/[^/]+\/jsonrpc$/,
    doc: { summary: 'A2A JSON-RPC 2.0', tag: SDK, sse: true, errorSchema: JSON_RPC_ERROR },
  },
  {
    method: 'GET',
    path: /^\/compat\/agents$/,
    doc: {
      summary: 'List the AgentDefs',
      tag: 'OpenAI Agents compat',
      responseSchema: AGENT_DEF_LIST,
    },
  },
  {
    method: 'GET',
    path: /^\/compat\/agents\/\{name\}$/,
    doc: { summary: 'One AgentDef', tag: 'OpenAI Agents compat', responseSchema: AGENT_DEF },
  },
  {
    method: 'POST',
    path: /^\/compat\/runs$/,
    doc: {
      summary:
        "Run an agent by name (SSE when stream is true: a task, SSE id = the task's sequence number; Content-Location names where the stream is rejoined)",
      tag: 'OpenAI Agents compat',
      body: runRequestSchema,
      sse: true,
      responseSchema: RUN_RESPONSE,
    },
  },
  {
    method: 'GET',
    path: /^\/compat\/runs\/\{id\}\/stream$/,
    doc: {
      summary:
        'Rejoin a run stream (its Content-Location): the events after Last-Event-ID (or ?lastEventId) N, then live to its end, as POST /compat/runs streams them',
      tag: 'OpenAI Agents compat',
      sse: 'only',
      query: taskEventsQuerySchema,
      errorStatuses: {
        400: 'invalid_input when the Last-Event-ID is not a number; events_ahead when it is beyond the last event of the task',
        404: 'task_not_found: no such task of an agent compat serves',
        410: 'events_expired when retention dropped the events after it',
      },
    },
  },
];

/** Describes a gateway route for the OpenAPI document. */
export function describeRoute(method: string, path: string): RouteDoc {
  for (const rule of RULES) {
    if (
      (rule.method === method || (method === 'HEAD' && rule.method === 'GET')) &&
      rule.path.test(path)
    ) {
      return rule.doc;
    }
  }
  if (path.startsWith('/a2a/')) {
    const legacy = path.includes('/rest/v1/');
    const listsTasks = method === 'GET' && /\/rest\/(?:\{tenant\}\/)?tasks$/.test(path);
    return {
      summary: 'A2A HTTP+JSON binding',
      tag: SDK,
      // The v0.3 binding answers a sent message with 201 (as the SDK's Express router does).
      ...(legacy && path.endsWith('/message:send') ? { status: 201 } : {}),
      sse: path.endsWith(':stream') || path.endsWith(':subscribe') ? 'only' : false,
      errorSchema: legacy ? LEGACY_REST_ERROR : GOOGLE_RPC_ERROR,
      ...(listsTasks
        ? {
            query: path.includes('{tenant}')
              ? SDK_LIST_TASKS_QUERY
              : SDK_LIST_TASKS_QUERY_WITH_TENANT,
          }
        : {}),
      // The v1.0 binding answers its own media type (the SDK's); v0.3 and refusals made before
      // the binding (404, 413) answer plain JSON.
      jsonMediaTypes: legacy ? ['application/json'] : [A2A_JSON, 'application/json'],
    };
  }
  return { summary: `${method} ${path}`, tag: 'Other' };
}
