import type { Context } from 'hono';
import { routePath } from 'hono/route';
import { TrieRouter } from 'hono/router/trie-router';
import { tryDecodeURIComponent } from 'hono/utils/url';
import type { RestEnv } from './rest-env.ts';

/** The decoded path parameters of a matched HTTP+JSON route (`taskId`, `tenant`, ...). */
export type RestParams = Readonly<Record<string, string | undefined>>;

/** A handler of an HTTP+JSON route; `undefined` passes the request on to the next match. */
export type RestRouteHandler = (
  c: Context<RestEnv>,
  params: RestParams,
) => Promise<Response | undefined>;

/**
 * The routes of one HTTP+JSON binding, matched by Hono's TrieRouter inside a single wildcard route
 * of the mount: the binding's `/{tenant}/...` routes sit next to literal ones (`/tasks`), which
 * Hono's RegExpRouter refuses, and one refused route would make every app this mount is part of
 * (a whole gateway) fall back to the TrieRouter.
 */
export class RestRouter {
  readonly #router = new TrieRouter<RestRouteHandler>();
  /** The routes added, in order, with upper-case methods (as Hono's `app.routes` lists them). */
  readonly routes: Array<{ method: string; path: string }> = [];

  /** Adds a route, with Hono's path syntax (`/tasks/:taskId{[^/]+:cancel}`). */
  add(method: 'get' | 'post' | 'delete', path: string, handler: RestRouteHandler): void {
    this.routes.push({ method: method.toUpperCase(), path });
    this.#router.add(method.toUpperCase(), path, handler);
  }

  /**
   * Runs the routes matching the request, in the order they were added, until one answers; as
   * Hono does, a HEAD request is routed as a GET and parameters are URI-decoded.
   */
  async dispatch(c: Context<RestEnv>, path: string): Promise<Response | undefined> {
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    const [matches] = this.#router.match(method, path);
    for (const [handler, raw] of matches) {
      const params: Record<string, string> = {};
      for (const [name, value] of Object.entries(raw as Record<string, string>)) {
        params[name] = value && tryDecodeURIComponent(value);
      }
      const response = await handler(c, params);
      if (response !== undefined) return response;
    }
    return undefined;
  }
}

/**
 * The request's path below the wildcard route it was matched by (`/tasks/1` for
 * `/a2a/echo/rest/tasks/1` matched by `/a2a/echo/rest/*`), always starting with `/`.
 */
export function pathBelowRoute(c: Context): string {
  const segments = routePath(c).split('/').length - 2;
  const path = c.req.path;
  let index = 0;
  for (let segment = 0; segment < segments && index !== -1; segment++) {
    index = path.indexOf('/', index + 1);
  }
  return index === -1 ? '/' : path.slice(index);
}
