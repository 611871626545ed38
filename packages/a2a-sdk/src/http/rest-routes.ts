import {
  A2A_CONTENT_TYPE,
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  type Message,
  SendMessageRequest,
  SendMessageResponse,
  SSE_HEADERS,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import {
  ContentTypeNotSupportedError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  restStatusFor,
  toRestErrorBody,
} from '@a2a-js/sdk/errors';
import {
  type A2ARequestHandler,
  type ServerCallContext,
  validateVersion,
} from '@a2a-js/sdk/server';
import { firstStep, mediaTypeOf, requestHeader, sseResponse } from '@agentport/http';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { buildCallContext, extensionHeaders } from './call-context.ts';
import { readExpressJson } from './express-json.ts';
import type { RestEnv, RestRouteOptions } from './rest-env.ts';
import { parseHistoryLength, parseIncludeArtifacts, parseListTasksQuery } from './rest-query.ts';

type RestContext = Context<RestEnv>;

const JSON_TYPES = new Set(['application/json', A2A_CONTENT_TYPE]);
const A2A_JSON = { 'Content-Type': A2A_CONTENT_TYPE };

/** Answers an error as the SDK's REST binding does: google.rpc status body, mapped HTTP status. */
export function restErrorResponse(context: Context, error: unknown, headers = {}): Response {
  const status = restStatusFor(error);
  return context.json(toRestErrorBody(error, status), status as ContentfulStatusCode, {
    ...A2A_JSON,
    ...headers,
  });
}

function withTenant(tenant: string | undefined, body: unknown): unknown {
  if (tenant === undefined || typeof body !== 'object' || body === null) return body;
  return { ...body, tenant };
}

function parseSendMessage(context: RestContext): SendMessageRequest {
  const body = withTenant(context.req.param('tenant'), context.get('body'));
  let request: SendMessageRequest;
  try {
    request = SendMessageRequest.fromJSON(body ?? {});
  } catch {
    // The SDK's decoder throws a TypeError on some malformed messages (a part that is null).
    throw new RequestMalformedError('message is not a valid A2A Message');
  }
  if (!request.message) throw new RequestMalformedError('message is required');
  if (!request.message.messageId) throw new RequestMalformedError('message.messageId is required');
  return request;
}

function taskIdOf(context: RestContext, suffix = ''): string {
  const raw = context.req.param('taskId') ?? '';
  return suffix === '' ? raw : raw.slice(0, -suffix.length);
}

function tenantOf(context: RestContext): string {
  return context.req.param('tenant') || context.req.query('tenant') || '';
}

function sendResult(result: Message | Task): SendMessageResponse {
  return {
    payload:
      'messageId' in result
        ? { $case: 'message', value: result }
        : { $case: 'task', value: result },
  };
}

/** One route's work, given the request and the SDK's call context built for it. */
type RestHandler = (context: RestContext, callContext: ServerCallContext) => Promise<Response>;

/** A route of the binding: its method, its path (also served under `/{tenant}`) and its work. */
type RestRoute = readonly [method: 'get' | 'post' | 'delete', path: string, handler: RestHandler];

/**
 * The binding's middleware: refuses a body whose media type is not JSON, and reads a JSON one
 * (unless the v0.3 middleware has) into the `body` variable, as the SDK's Express router's
 * `express.json()` does.
 */
const readRestBody: MiddlewareHandler<RestEnv> = async (context, next) => {
  const contentType = requestHeader(context, 'content-type');
  const mediaType = mediaTypeOf(contentType);
  if (mediaType !== undefined && !JSON_TYPES.has(mediaType)) {
    return restErrorResponse(
      context,
      new ContentTypeNotSupportedError(
        `Unsupported Content-Type "${contentType}"; expected application/json or application/a2a+json.`,
      ),
    );
  }
  if (!context.get('bodyRead') && mediaType !== undefined) {
    const parsed = await readExpressJson(context, { strict: false });
    if (!parsed.ok) {
      return restErrorResponse(context, new RequestMalformedError(parsed.reason));
    }
    context.set('body', parsed.value);
    context.set('bodyRead', true);
  }
  await next();
};

/**
 * A route's Hono handler: builds the call context (its version checked against the card), runs
 * the route's work and answers what it throws as the SDK's REST binding does.
 */
function restRoute(
  options: RestRouteOptions,
  handler: RestHandler,
): (context: RestContext) => Promise<Response> {
  return async (context) => {
    let callContext: ServerCallContext | undefined;
    try {
      callContext = await buildCallContext(context, {
        userBuilder: options.userBuilder,
        tenant: context.req.param('tenant') || undefined,
      });
      validateVersion(
        callContext.requestedVersion,
        await options.requestHandler.getAgentCard(),
        'HTTP+JSON',
      );
      return await handler(context, callContext);
    } catch (error) {
      return restErrorResponse(context, error, callContext ? extensionHeaders(callContext) : {});
    }
  };
}

/** A JSON answer of the binding, with the extensions the call activated. */
function restJson(
  context: RestContext,
  callContext: ServerCallContext,
  body: unknown,
  status: 200 | 201 = 200,
): Response {
  return context.json(body, status, { ...A2A_JSON, ...extensionHeaders(callContext) });
}

/** A stream of the binding: SSE, or the error answer when it fails before its first event. */
async function restStream(
  context: RestContext,
  callContext: ServerCallContext,
  events: AsyncGenerator<StreamResponse>,
  stopWhenGone = false,
): Promise<Response> {
  const first = await firstStep(events);
  const headers = extensionHeaders(callContext);
  if ('error' in first) return restErrorResponse(context, first.error, headers);
  return sseResponse(events, first, {
    encode: (event) => JSON.stringify(StreamResponse.toJSON(event)),
    encodeError: (error) => JSON.stringify(toRestErrorBody(error, restStatusFor(error))),
    headers: { ...SSE_HEADERS, ...headers },
    stopWhenGone,
  });
}

/** The extended card and the message routes: `message:send` and `message:stream`. */
function messageRoutes(requestHandler: A2ARequestHandler): RestRoute[] {
  return [
    [
      'get',
      '/extendedAgentCard',
      async (context, callContext) => {
        const card = await requestHandler.getAuthenticatedExtendedAgentCard(
          { tenant: tenantOf(context) },
          callContext,
        );
        return restJson(context, callContext, AgentCard.toJSON(card));
      },
    ],
    [
      'post',
      '/:action{message:send}',
      async (context, callContext) => {
        const result = await requestHandler.sendMessage(parseSendMessage(context), callContext);
        return restJson(context, callContext, SendMessageResponse.toJSON(sendResult(result)));
      },
    ],
    [
      'post',
      '/:action{message:stream}',
      async (context, callContext) =>
        restStream(
          context,
          callContext,
          requestHandler.sendMessageStream(parseSendMessage(context), callContext),
        ),
    ],
  ];
}

/** `GET /tasks`: ListTasks, its response with the fields Express's JSON always carries. */
function listTasksHandler(requestHandler: A2ARequestHandler): RestHandler {
  return async (context, callContext) => {
    const request = parseListTasksQuery(context.req.query(), tenantOf(context));
    const response = await requestHandler.listTasks(request, callContext);
    const {
      tasks = [],
      nextPageToken = '',
      pageSize = 0,
      totalSize = 0,
      ...rest
    } = ListTasksResponse.toJSON(response) as Record<string, unknown> & {
      tasks?: Record<string, unknown>[];
    };
    const includeArtifacts = parseIncludeArtifacts(context.req.query('includeArtifacts'));
    return restJson(context, callContext, {
      tasks: includeArtifacts
        ? tasks.map((task) => (task.artifacts === undefined ? { ...task, artifacts: [] } : task))
        : tasks,
      nextPageToken,
      pageSize,
      totalSize,
      ...rest,
    });
  };
}

/** The task routes: `:subscribe` (GET and POST), `:cancel`, one task and the task list. */
function taskRoutes(requestHandler: A2ARequestHandler): RestRoute[] {
  const subscribe: RestHandler = async (context, callContext) =>
    restStream(
      context,
      callContext,
      requestHandler.resubscribe(
        { id: taskIdOf(context, ':subscribe'), tenant: tenantOf(context) },
        callContext,
      ),
      true,
    );
  return [
    ['get', '/tasks/:taskId{[^/]+:subscribe}', subscribe],
    ['post', '/tasks/:taskId{[^/]+:subscribe}', subscribe],
    [
      'post',
      '/tasks/:taskId{[^/]+:cancel}',
      async (context, callContext) => {
        const task = await requestHandler.cancelTask(
          { id: taskIdOf(context, ':cancel'), tenant: tenantOf(context), metadata: {} },
          callContext,
        );
        return restJson(context, callContext, Task.toJSON(task));
      },
    ],
    [
      'get',
      '/tasks/:taskId',
      async (context, callContext) => {
        const historyLength = context.req.query('historyLength');
        const task = await requestHandler.getTask(
          {
            id: taskIdOf(context),
            tenant: tenantOf(context),
            ...(historyLength === undefined
              ? {}
              : { historyLength: parseHistoryLength(historyLength) }),
          },
          callContext,
        );
        return restJson(context, callContext, Task.toJSON(task));
      },
    ],
    ['get', '/tasks', listTasksHandler(requestHandler)],
  ];
}

/** The push-notification config routes of a task (create, list, get, delete). */
function pushConfigRoutes(requestHandler: A2ARequestHandler): RestRoute[] {
  const configOf = (context: RestContext) => ({
    taskId: taskIdOf(context),
    id: context.req.param('configId') ?? '',
    tenant: tenantOf(context),
  });
  return [
    [
      'post',
      '/tasks/:taskId/pushNotificationConfigs',
      async (context, callContext) => {
        const card = await requestHandler.getAgentCard();
        if (!card.capabilities?.pushNotifications) throw new PushNotificationNotSupportedError();
        const body = withTenant(context.req.param('tenant'), context.get('body'));
        const config = TaskPushNotificationConfig.fromJSON({
          ...(body ?? {}),
          taskId: taskIdOf(context),
        });
        const created = await requestHandler.createTaskPushNotificationConfig(config, callContext);
        return restJson(context, callContext, TaskPushNotificationConfig.toJSON(created), 201);
      },
    ],
    [
      'get',
      '/tasks/:taskId/pushNotificationConfigs',
      async (context, callContext) => {
        const response = await requestHandler.listTaskPushNotificationConfigs(
          { taskId: taskIdOf(context), pageSize: 0, pageToken: '', tenant: tenantOf(context) },
          callContext,
        );
        return restJson(
          context,
          callContext,
          ListTaskPushNotificationConfigsResponse.toJSON(response),
        );
      },
    ],
    [
      'get',
      '/tasks/:taskId/pushNotificationConfigs/:configId',
      async (context, callContext) => {
        const config = await requestHandler.getTaskPushNotificationConfig(
          configOf(context),
          callContext,
        );
        return restJson(context, callContext, TaskPushNotificationConfig.toJSON(config));
      },
    ],
    [
      'delete',
      '/tasks/:taskId/pushNotificationConfigs/:configId',
      async (context, callContext) => {
        await requestHandler.deleteTaskPushNotificationConfig(configOf(context), callContext);
        return context.body(null, 204, extensionHeaders(callContext));
      },
    ],
  ];
}

/**
 * Registers the A2A v1.0 HTTP+JSON binding on a Hono app mounted at the binding's URL, matching
 * the SDK's Express `restHandler` route for route: `/message:send`, `/message:stream`,
 * `/tasks/{id}`, `/tasks/{id}:cancel`, `/tasks/{id}:subscribe`, `/tasks`, `/extendedAgentCard` and
 * the push-notification config routes, each also under a `/{tenant}` prefix.
 */
export function registerRestRoutes(rest: Hono<RestEnv>, options: RestRouteOptions): void {
  const { requestHandler } = options;
  rest.use('*', readRestBody);
  const routes = [
    ...messageRoutes(requestHandler),
    ...taskRoutes(requestHandler),
    ...pushConfigRoutes(requestHandler),
  ];
  for (const [method, path, handler] of routes) {
    const route = restRoute(options, handler);
    rest[method](path, route);
    rest[method](`/:tenant${path}`, route);
  }
}
