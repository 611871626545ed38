const PROTOCOL = /^https?$/i;
const HOST = /^[a-z0-9.-]+(?::\d{1,5})?$|^\[[0-9a-f:.]+\](?::\d{1,5})?$/i;

function firstValue(header: string | undefined): string | undefined {
  const value = header?.split(',')[0]?.trim();
  return value === '' ? undefined : value;
}

/**
 * The absolute URL the routes are served at, seen from a request for `suffix` (the card path):
 * the request URL without the suffix, so a mount prefix is kept. `publicUrl` (scheme, host and an
 * optional path, without a trailing slash) replaces the request's scheme and host when given; otherwise,
 * with `trustProxyHeaders`, a well-formed `X-Forwarded-Proto` and `X-Forwarded-Host` do.
 */
export function requestEndpoint(
  request: Request,
  suffix: string,
  trustProxyHeaders: boolean,
  publicUrl?: string,
): string {
  const url = new URL(request.url);
  // A trailing slash after the card path (a server that ignores them answers it) is not part of it.
  const asked = url.pathname.replace(/\/+$/, '');
  const mount = asked.endsWith(suffix) ? asked.slice(0, -suffix.length) : asked;
  const path = mount.replace(/\/+$/, '');
  if (publicUrl !== undefined) return `${publicUrl}${path}`;
  let protocol = url.protocol;
  let host = url.host;
  if (trustProxyHeaders) {
    const forwardedProtocol = firstValue(request.headers.get('x-forwarded-proto') ?? undefined);
    const forwardedHost = firstValue(request.headers.get('x-forwarded-host') ?? undefined);
    if (forwardedProtocol !== undefined && PROTOCOL.test(forwardedProtocol)) {
      protocol = `${forwardedProtocol.toLowerCase()}:`;
    }
    if (forwardedHost !== undefined && HOST.test(forwardedHost)) host = forwardedHost;
  }
  return `${protocol}//${host}${path}`;
}
