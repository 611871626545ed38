import {
  A2A_CONTENT_TYPE,
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  type Message,
  SendMessageRequest,
  SendMessageResponse,
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
import { type ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { buildCallContext, extensionHeaders } from './call-context.ts';
import { mediaTypeOf, readJsonBody } from './json-body.ts';
import { requestHeader } from './request-header.ts';
import type { RestEnv, RestRouteOptions } from './rest-env.ts';
import { parseHistoryLength, parseIncludeArtifacts, parseListTasksQuery } from './rest-query.ts';
import { firstStep, sseResponse } from './sse.ts';

type RestContext = Context<RestEnv>;

const JSON_TYPES = new Set(['application/json', A2A_CONTENT_TYPE]);
const A2A_JSON = { 'Content-Type': A2A_CONTENT_TYPE };

/** Answers an error as the SDK's REST binding does: google.rpc status body, mapped HTTP status. */
export function restErrorResponse(c: Context, error: unknown, headers = {}): Response {
  const status = restStatusFor(error);
  return c.json(toRestErrorBody(error, status), status as ContentfulStatusCode, {
    ...A2A_JSON,
    ...headers,
  });
}

function withTenant(tenant: string | undefined, body: unknown): unknown {
  if (tenant === undefined || typeof body !== 'object' || body === null) return body;
  return { ...body, tenant };
}

function parseSendMessage(c: RestContext): SendMessageRequest {
  const body = withTenant(c.req.param('tenant'), c.get('body'));
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

function taskIdOf(c: RestContext, suffix = ''): string {
  const raw = c.req.param('taskId') ?? '';
  return suffix === '' ? raw : raw.slice(0, -suffix.length);
}

function tenantOf(c: RestContext): string {
  return c.req.param('tenant') || c.req.query('tenant') || '';
}

function sendResult(result: Message | Task): SendMessageResponse {
  return {
    payload:
      'messageId' in result
        ? { $case: 'message', value: result }
        : { $case: 'task', value: result },
  };
}

/**
 * Registers the A2A v1.0 HTTP+JSON binding on a Hono app mounted at the binding's URL, matching
 * the SDK's Express `restHandler` route for route: `/message:send`, `/message:stream`,
 * `/tasks/{id}`, `/tasks/{id}:cancel`, `/tasks/{id}:subscribe`, `/tasks`, `/extendedAgentCard` and
 * the push-notification config routes, each also under a `/{tenant}` prefix.
 */
export function registerRestRoutes(rest: Hono<RestEnv>, options: RestRouteOptions): void {
  const { requestHandler } = options;

  rest.use('*', async (c, next) => {
    const contentType = requestHeader(c, 'content-type');
    const mediaType = mediaTypeOf(contentType);
    if (mediaType !== undefined && !JSON_TYPES.has(mediaType)) {
      return restErrorResponse(
        c,
        new ContentTypeNotSupportedError(
          `Unsupported Content-Type "${contentType}"; expected application/json or application/a2a+json.`,
        ),
      );
    }
    if (!c.get('bodyRead') && mediaType !== undefined) {
      const parsed = await readJsonBody(c, { strict: false });
      if (!parsed.ok) {
        return restErrorResponse(c, new RequestMalformedError(parsed.reason));
      }
      c.set('body', parsed.value);
      c.set('bodyRead', true);
    }
    await next();
  });

  const contextOf = async (c: RestContext): Promise<ServerCallContext> => {
    const context = await buildCallContext(c, {
      userBuilder: options.userBuilder,
      tenant: c.req.param('tenant') || undefined,
    });
    validateVersion(context.requestedVersion, await requestHandler.getAgentCard(), 'HTTP+JSON');
    return context;
  };

  type Route = (c: RestContext, context: ServerCallContext) => Promise<Response>;
  const route =
    (handler: Route) =>
    async (c: RestContext): Promise<Response> => {
      let context: ServerCallContext | undefined;
      try {
        context = await contextOf(c);
        return await handler(c, context);
      } catch (error) {
        return restErrorResponse(c, error, context ? extensionHeaders(context) : {});
      }
    };
  const json = (
    c: RestContext,
    context: ServerCallContext,
    body: unknown,
    status: 200 | 201 = 200,
  ) => c.json(body, status, { ...A2A_JSON, ...extensionHeaders(context) });
  const stream = async (
    c: RestContext,
    context: ServerCallContext,
    events: AsyncGenerator<StreamResponse>,
    stopWhenGone = false,
  ) => {
    const first = await firstStep(events);
    const headers = extensionHeaders(context);
    if ('error' in first) return restErrorResponse(c, first.error, headers);
    return sseResponse(events, first, {
      encode: (event) => StreamResponse.toJSON(event),
      encodeError: (error) => toRestErrorBody(error, restStatusFor(error)),
      headers,
      stopWhenGone,
    });
  };

  const routes: [method: 'get' | 'post' | 'delete', path: string, handler: Route][] = [
    [
      'get',
      '/extendedAgentCard',
      async (c, context) => {
        const card = await requestHandler.getAuthenticatedExtendedAgentCard(
          { tenant: tenantOf(c) },
          context,
        );
        return json(c, context, AgentCard.toJSON(card));
      },
    ],
    [
      'post',
      '/:action{message:send}',
      async (c, context) => {
        const result = await requestHandler.sendMessage(parseSendMessage(c), context);
        return json(c, context, SendMessageResponse.toJSON(sendResult(result)));
      },
    ],
    [
      'post',
      '/:action{message:stream}',
      async (c, context) =>
        stream(c, context, requestHandler.sendMessageStream(parseSendMessage(c), context)),
    ],
    ...(['get', 'post'] as const).map((method): [typeof method, string, Route] => [
      method,
      '/tasks/:taskId{[^/]+:subscribe}',
      async (c, context) =>
        stream(
          c,
          context,
          requestHandler.resubscribe(
            { id: taskIdOf(c, ':subscribe'), tenant: tenantOf(c) },
            context,
          ),
          true,
        ),
    ]),
    [
      'post',
      '/tasks/:taskId{[^/]+:cancel}',
      async (c, context) => {
        const task = await requestHandler.cancelTask(
          { id: taskIdOf(c, ':cancel'), tenant: tenantOf(c), metadata: {} },
          context,
        );
        return json(c, context, Task.toJSON(task));
      },
    ],
    [
      'get',
      '/tasks/:taskId',
      async (c, context) => {
        const historyLength = c.req.query('historyLength');
        const task = await requestHandler.getTask(
          {
            id: taskIdOf(c),
            tenant: tenantOf(c),
            ...(historyLength === undefined
              ? {}
              : { historyLength: parseHistoryLength(historyLength) }),
          },
          context,
        );
        return json(c, context, Task.toJSON(task));
      },
    ],
    [
      'get',
      '/tasks',
      async (c, context) => {
        const request = parseListTasksQuery(c.req.query(), tenantOf(c));
        const response = await requestHandler.listTasks(request, context);
        const {
          tasks = [],
          nextPageToken = '',
          pageSize = 0,
          totalSize = 0,
          ...rest
        } = ListTasksResponse.toJSON(response) as Record<string, unknown> & {
          tasks?: Record<string, unknown>[];
        };
        const includeArtifacts = parseIncludeArtifacts(c.req.query('includeArtifacts'));
        return json(c, context, {
          tasks: includeArtifacts
            ? tasks.map((task) =>
                task.artifacts === undefined ? { ...task, artifacts: [] } : task,
              )
            : tasks,
          nextPageToken,
          pageSize,
          totalSize,
          ...rest,
        });
      },
    ],
    [
      'post',
      '/tasks/:taskId/pushNotificationConfigs',
      async (c, context) => {
        const card = await requestHandler.getAgentCard();
        if (!card.capabilities?.pushNotifications) throw new PushNotificationNotSupportedError();
        const body = withTenant(c.req.param('tenant'), c.get('body'));
        const config = TaskPushNotificationConfig.fromJSON({
          ...(body ?? {}),
          taskId: taskIdOf(c),
        });
        const created = await requestHandler.createTaskPushNotificationConfig(config, context);
        return json(c, context, TaskPushNotificationConfig.toJSON(created), 201);
      },
    ],
    [
      'get',
      '/tasks/:taskId/pushNotificationConfigs',
      async (c, context) => {
        const response = await requestHandler.listTaskPushNotificationConfigs(
          { taskId: taskIdOf(c), pageSize: 0, pageToken: '', tenant: tenantOf(c) },
          context,
        );
        return json(c, context, ListTaskPushNotificationConfigsResponse.toJSON(response));
      },
    ],
    [
      'get',
      '/tasks/:taskId/pushNotificationConfigs/:configId',
      async (c, context) => {
        const config = await requestHandler.getTaskPushNotificationConfig(
          { taskId: taskIdOf(c), id: c.req.param('configId') ?? '', tenant: tenantOf(c) },
          context,
        );
        return json(c, context, TaskPushNotificationConfig.toJSON(config));
      },
    ],
    [
      'delete',
      '/tasks/:taskId/pushNotificationConfigs/:configId',
      async (c, context) => {
        await requestHandler.deleteTaskPushNotificationConfig(
          { taskId: taskIdOf(c), id: c.req.param('configId') ?? '', tenant: tenantOf(c) },
          context,
        );
        return c.body(null, 204, extensionHeaders(context));
      },
    ],
  ];
  for (const [method, path, handler] of routes) {
    rest[method](path, route(handler));
    rest[method](`/:tenant${path}`, route(handler));
  }
}
