import { StoreUnavailableError } from '@agentport/core';

/** Node's codes of a connection that failed or broke. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** PostgreSQL's codes of a server that cannot serve now: shutting down, starting, full. */
const SERVER_CODES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '53300']);

/**
 * Whether an error of the driver means the database cannot be reached: a failed or broken
 * connection, a connection exception (SQLSTATE class 08), a server shutting down or full.
 */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08')) return true;
  }
  if (error instanceof AggregateError) return error.errors.some(isUnavailable);
  // pg's own words for a connection that ended or never came (no code).
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    error.message,
  );
}

/** Runs a database call, its connection failures turned into StoreUnavailableError. */
export async function unavailableOr<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw isUnavailable(error) ? new StoreUnavailableError({ cause: error }) : error;
  }
}
