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
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { buildCallContext, extensionHeaders } from './call-context.ts';
import { mediaTypeOf, readJsonBody } from './json-body.ts';
import type { RestEnv, RestRouteOptions } from './rest-env.ts';
import { parseHistoryLength, parseIncludeArtifacts, parseListTasksQuery } from './rest-query.ts';
import { type RestParams, RestRouter } from './rest-router.ts';
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

function parseSendMessage(c: RestContext, params: RestParams): SendMessageRequest {
  const body = withTenant(params.tenant, c.get('body'));
  const request = SendMessageRequest.fromJSON(body ?? {});
  if (!request.message) throw new RequestMalformedError('message is required');
  if (!request.message.messageId) throw new RequestMalformedError('message.messageId is required');
  return request;
}

function taskIdOf(params: RestParams, suffix = ''): string {
  const raw = params.taskId ?? '';
  return suffix === '' ? raw : raw.slice(0, -suffix.length);
}

function tenantOf(c: RestContext, params: RestParams): string {
  return params.tenant || c.req.query('tenant') || '';
}

function sendResult(result: Message | Task): SendMessageResponse {
  return {
    payload:
      'messageId' in result
        ? { $case: 'message', value: result }
        : { $case: 'task', value: result },
  };
}

/** An HTTP+JSON binding: its routes, and how it answers a request given its path below `/rest`. */
export interface RestBinding {
  /** The binding's routes relative to `/rest`, in the order they are matched. */
  routes: ReadonlyArray<{ method: string; path: string }>;
  /** The binding's answer, or `undefined` when none of its routes answers the request. */
  answer(c: RestContext, path: string): Promise<Response | undefined>;
}

/**
 * The A2A v1.0 HTTP+JSON binding, matching the SDK's Express `restHandler` route for route:
 * `/message:send`, `/message:stream`, `/tasks/{id}`, `/tasks/{id}:cancel`,
 * `/tasks/{id}:subscribe`, `/tasks`, `/extendedAgentCard` and the push-notification config
 * routes, each also under a `/{tenant}` prefix; it answers `undefined` when no route matches.
 */
export function createRestBinding(options: RestRouteOptions): RestBinding {
  const { requestHandler } = options;

  const readBody = async (c: RestContext): Promise<Response | undefined> => {
    const contentType = c.req.header('content-type');
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
      if (!parsed.ok)
        return restErrorResponse(c, new RequestMalformedError('Invalid JSON payload.'));
      c.set('body', parsed.value);
      c.set('bodyRead', true);
    }
    return undefined;
  };

  const contextOf = async (c: RestContext, params: RestParams): Promise<ServerCallContext> => {
    const context = await buildCallContext(c, {
      userBuilder: options.userBuilder,
      tenant: params.tenant || undefined,
    });
    validateVersion(context.requestedVersion, await requestHandler.getAgentCard(), 'HTTP+JSON');
    return context;
  };

  type Route = (
    c: RestContext,
    context: ServerCallContext,
    params: RestParams,
  ) => Promise<Response>;
  const route =
    (handler: Route) =>
    async (c: RestContext, params: RestParams): Promise<Response> => {
      let context: ServerCallContext | undefined;
      try {
        context = await contextOf(c, params);
        return await handler(c, context, params);
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
  ) => {
    const first = await firstStep(events);
    const headers = extensionHeaders(context);
    if ('error' in first) return restErrorResponse(c, first.error, headers);
    return sseResponse(events, first, {
      encode: (event) => StreamResponse.toJSON(event),
      encodeError: (error) => toRestErrorBody(error, restStatusFor(error)),
      headers,
    });
  };

  const routes: [method: 'get' | 'post' | 'delete', path: string, handler: Route][] = [
    [
      'get',
      '/extendedAgentCard',
      async (c, context, params) => {
        const card = await requestHandler.getAuthenticatedExtendedAgentCard(
          { tenant: tenantOf(c, params) },
          context,
        );
        return json(c, context, AgentCard.toJSON(card));
      },
    ],
    [
      'post',
      '/:action{message:send}',
      async (c, context, params) => {
        const result = await requestHandler.sendMessage(parseSendMessage(c, params), context);
        return json(c, context, SendMessageResponse.toJSON(sendResult(result)));
      },
    ],
    [
      'post',
      '/:action{message:stream}',
      async (c, context, params) =>
        stream(c, context, requestHandler.sendMessageStream(parseSendMessage(c, params), context)),
    ],
    ...(['get', 'post'] as const).map((method): [typeof method, string, Route] => [
      method,
      '/tasks/:taskId{[^/]+:subscribe}',
      async (c, context, params) =>
        stream(
          c,
          context,
          requestHandler.resubscribe(
            { id: taskIdOf(params, ':subscribe'), tenant: tenantOf(c, params) },
            context,
          ),
        ),
    ]),
    [
      'post',
      '/tasks/:taskId{[^/]+:cancel}',
      async (c, context, params) => {
        const task = await requestHandler.cancelTask(
          { id: taskIdOf(params, ':cancel'), tenant: tenantOf(c, params), metadata: {} },
          context,
        );
        return json(c, context, Task.toJSON(task));
      },
    ],
    [
      'get',
      '/tasks/:taskId',
      async (c, context, params) => {
        const historyLength = c.req.query('historyLength');
        const task = await requestHandler.getTask(
          {
            id: taskIdOf(params),
            tenant: tenantOf(c, params),
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
      async (c, context, params) => {
        const request = parseListTasksQuery(c.req.query(), tenantOf(c, params));
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
      async (c, context, params) => {
        const card = await requestHandler.getAgentCard();
        if (!card.capabilities?.pushNotifications) throw new PushNotificationNotSupportedError();
        const body = withTenant(params.tenant, c.get('body'));
        const config = TaskPushNotificationConfig.fromJSON({
          ...(body ?? {}),
          taskId: taskIdOf(params),
        });
        const created = await requestHandler.createTaskPushNotificationConfig(config, context);
        return json(c, context, TaskPushNotificationConfig.toJSON(created), 201);
      },
    ],
    [
      'get',
      '/tasks/:taskId/pushNotificationConfigs',
      async (c, context, params) => {
        const response = await requestHandler.listTaskPushNotificationConfigs(
          { taskId: taskIdOf(params), pageSize: 0, pageToken: '', tenant: tenantOf(c, params) },
          context,
        );
        return json(c, context, ListTaskPushNotificationConfigsResponse.toJSON(response));
      },
    ],
    [
      'get',
      '/tasks/:taskId/pushNotificationConfigs/:configId',
      async (c, context, params) => {
        const config = await requestHandler.getTaskPushNotificationConfig(
          { taskId: taskIdOf(params), id: params.configId ?? '', tenant: tenantOf(c, params) },
          context,
        );
        return json(c, context, TaskPushNotificationConfig.toJSON(config));
      },
    ],
    [
      'delete',
      '/tasks/:taskId/pushNotificationConfigs/:configId',
      async (c, context, params) => {
        await requestHandler.deleteTaskPushNotificationConfig(
          { taskId: taskIdOf(params), id: params.configId ?? '', tenant: tenantOf(c, params) },
          context,
        );
        return c.body(null, 204, extensionHeaders(context));
      },
    ],
  ];
  const router = new RestRouter();
  for (const [method, path, handler] of routes) {
    router.add(method, path, route(handler));
    router.add(method, `/:tenant${path}`, route(handler));
  }
  return {
    routes: router.routes,
    answer: async (c, path) => (await readBody(c)) ?? router.dispatch(c, path),
  };
}
