import { format } from 'node:util';
import type { Logger } from 'pino';

/** The console methods routed, and the level each is logged at. */
const LEVELS = {
  debug: 'debug',
  info: 'info',
  log: 'info',
  warn: 'warn',
  error: 'error',
} as const;

type ConsoleMethod = keyof typeof LEVELS;

/**
 * Routes what libraries write with `console` (the official A2A SDK warns and errs on some
 * requests, with ids the caller chose) into `logger`, at the matching level with
 * `source: 'console'`: one JSON line each, so caller text can neither break the log into more
 * lines nor forge one, and `LOG_LEVEL` applies to it too. Returns the function that puts the
 * console back.
 *
 * @example
 * const restore = routeConsoleToLog(pino());
 */
export function routeConsoleToLog(logger: Logger): () => void {
  const child = logger.child({ source: 'console' });
  const originals = new Map<ConsoleMethod, (...args: unknown[]) => void>();
  for (const method of Object.keys(LEVELS) as ConsoleMethod[]) {
    originals.set(method, console[method]);
    const level = LEVELS[method];
    console[method] = (...args: unknown[]) => child[level](format(...args));
  }
  return () => {
    for (const [method, original] of originals) console[method] = original;
  };
}
