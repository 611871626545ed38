import { A2A_VERSION_HEADER, type AgentCard } from '@a2a-js/sdk';
import { toLegacyHTTPError } from '@a2a-js/sdk/compat/v0_3/server';
import { requestHeader } from '@agentport/http';
import type { Context, Handler } from 'hono';
import { toWireAgentCard } from '../card/agent-card.ts';
import { isLegacyVersion, toLegacyAgentCard } from '../card/legacy-agent-card.ts';
import { VERSION_HEADER } from './header-names.ts';

/** Options of the card handler. */
export interface CardRouteOptions {
  /** Serve the v0.3 hybrid card to clients that do not ask for A2A 1.0. */
  legacyCompat: boolean;
  /** `Cache-Control` max-age in seconds; 0 or less sends `no-cache` (default 3600). */
  maxAge: number;
}

interface Rendered {
  body: string;
  etag: string;
}

type Rendering = { ok: true; rendered: Rendered } | { ok: false; error: unknown };

async function render(value: unknown): Promise<Rendered> {
  const body = JSON.stringify(value);
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(body));
  const hex = Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0'));
  return { body, etag: `W/"${hex.join('').slice(0, 16)}"` };
}

/** Whether a GET is fresh for an ETag, by the rules of the `fresh` package Express uses. */
function isFresh(context: Context, etag: string): boolean {
  const ifNoneMatch = requestHeader(context, 'if-none-match');
  if (!ifNoneMatch) return false;
  if (/(?:^|,)\s*no-cache\s*(?:,|$)/.test(requestHeader(context, 'cache-control') ?? ''))
    return false;
  if (ifNoneMatch.trim() === '*') return true;
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => strip(tag) === strip(etag));
}

/**
 * The AgentCard handler: the v1.0 card to clients sending `A2A-Version: 1.0` (or any non-0.3
 * version), the v0.3 hybrid card otherwise (with legacy compatibility on), each with a weak ETag,
 * `Cache-Control` and `Vary: A2A-Version`, answering 304 to a matching `If-None-Match`.
 */
export function createCardHandler(card: AgentCard, options: CardRouteOptions): Handler {
  const cacheControl = options.maxAge > 0 ? `public, max-age=${options.maxAge}` : 'no-cache';
  let current: Promise<Rendered> | undefined;
  let legacy: Promise<Rendering> | undefined;

  return async (context) => {
    const legacyRequest =
      options.legacyCompat && isLegacyVersion(requestHeader(context, VERSION_HEADER) || '0.3');
    const vary: Record<string, string> = options.legacyCompat ? { Vary: A2A_VERSION_HEADER } : {};
    let rendered: Rendered;
    if (legacyRequest) {
      legacy ??= (async (): Promise<Rendering> => {
        try {
          return { ok: true, rendered: await render(toLegacyAgentCard(card)) };
        } catch (error) {
          return { ok: false, error };
        }
      })();
      const rendering = await legacy;
      if (!rendering.ok) return context.json(toLegacyHTTPError(rendering.error), 400, vary);
      rendered = rendering.rendered;
    } else {
      current ??= render(toWireAgentCard(card));
      rendered = await current;
    }
    const headers = { ETag: rendered.etag, 'Cache-Control': cacheControl, ...vary };
    if (isFresh(context, rendered.etag)) return context.body(null, 304, headers);
    return context.body(rendered.body, 200, { ...headers, 'Content-Type': 'application/json' });
  };
}
