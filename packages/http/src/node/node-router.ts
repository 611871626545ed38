import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnswerHeaders, NodeRouteHandler } from './node-answer.ts';

/** One mount of a Node fast-path router: the Node path of an app mounted at `prefix`. */
export interface NodeMount {
  /** Where the app is mounted, as with Hono's `app.route(prefix, ...)`: `''` (root), `/agents`. */
  readonly prefix: string;
  readonly handleNode: NodeRouteHandler;
}

/** Options of {@link createNodeRouter}. */
export interface NodeRouterOptions {
  readonly mounts: readonly NodeMount[];
}

/**
 * A router over the Node fast paths of mounted apps: `(request, response, url, headers)`, true
 * when one of them answered.
 */
export type NodeRouter = (
  request: IncomingMessage,
  response: ServerResponse,
  url: string,
  headers?: AnswerHeaders,
) => boolean;

/** How many `/`-separated segments a prefix has (`''` none, `/agents/echo` two). */
function depthOf(prefix: string): number {
  let depth = 0;
  for (let index = 0; index < prefix.length; index += 1) if (prefix[index] === '/') depth += 1;
  return depth;
}

/**
 * The Node fast path of apps mounted at prefixes, as `app.route(prefix, sub)` mounts them on the
 * Hono side: a URL goes to the mount of its longest matching prefix (whole segments) with the
 * path under it, then, if that mount takes nothing, to the next shorter one, down to the root.
 * Each try is one string slice and one map lookup, whatever the number of mounts.
 *
 * @example
 * const route = createNodeRouter({ mounts: [{ prefix: '/agents', handleNode: rest.handleNode }] });
 * listen(app, { handleNode: (request, response) => route(request, response, request.url ?? '') });
 */
export function createNodeRouter(options: NodeRouterOptions): NodeRouter {
  const mounts = new Map<string, NodeRouteHandler>();
  let deepest = 0;
  for (const { prefix, handleNode } of options.mounts) {
    const normalized = prefix.replace(/\/+$/, '');
    mounts.set(normalized, handleNode);
    deepest = Math.max(deepest, depthOf(normalized));
  }
  return (request, response, url, headers) => {
    const mark = url.indexOf('?');
    const pathEnd = mark === -1 ? url.length : mark;
    // The ends of the URL's first `deepest` segments, deepest first.
    const ends: number[] = [];
    let slash = 0;
    while (ends.length < deepest) {
      slash = url.indexOf('/', slash + 1);
      if (slash === -1 || slash > pathEnd) break;
      ends.push(slash);
    }
    if (ends.length < deepest && pathEnd > 1) ends.push(pathEnd);
    for (let index = ends.length - 1; index >= -1; index -= 1) {
      const end = index === -1 ? 0 : (ends[index] as number);
      const handleNode = mounts.get(url.slice(0, end));
      if (handleNode === undefined) continue;
      const under = url.slice(end);
      // The mount's own root, as Hono routes it: `/agents?x` is `/?x` under `/agents`.
      const path = under === '' || under[0] === '?' ? `/${under}` : under;
      if (handleNode(request, response, path, headers)) return true;
    }
    return false;
  };
}
