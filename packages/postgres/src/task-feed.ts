import type { Pool, PoolClient } from 'pg';

/** What a feed needs: where to listen, and what to do with what it hears. */
export interface TaskFeedOptions {
  pool: Pool;
  channel: string;
  /** The name its connection shows in `pg_stat_activity` (to find it, in tests and by hand). */
  applicationName: string;
  onPayload: (payload: string) => void;
  /**
   * Called once it listens again after its connection dropped, with when that was (the clock's
   * milliseconds): the notifications of the time between are lost, and this is where the store
   * catches up with them.
   */
  onReconnect: (lostAt: number) => void;
  /** The store's clock. */
  now: () => number;
}

/** The LISTEN side of a store: one connection of the pool held while it runs, reconnected. */
export interface TaskFeed {
  /** Starts listening, if it is not already. */
  start(): void;
  /** Whether it listens now (waiting for a connection being made). */
  listening(): Promise<boolean>;
  /** Stops listening and gives its connection back. */
  close(): Promise<void>;
}

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;

/** A literal for SQL, quoted. */
function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** Makes a connection LISTEN on the channel, its notifications relayed, its loss reported. */
async function listenOn(
  held: PoolClient,
  options: TaskFeedOptions,
  lose: (error?: unknown) => void,
): Promise<void> {
  const { channel } = options;
  held.on('error', lose);
  held.on('end', () => lose());
  held.on('notification', (message) => {
    if (message.channel === channel && message.payload !== undefined) {
      options.onPayload(message.payload);
    }
  });
  await held.query(`SET application_name = ${literal(options.applicationName)}`);
  await held.query(`LISTEN "${channel}"`);
}

/**
 * Creates the feed of a store's notifications: a connection checked out of the pool that LISTENs
 * on the schema's channel, made again by itself (100 ms, then doubling to 5 s between tries)
 * when it drops or cannot be made; its errors never reach the process.
 */
export function createTaskFeed(options: TaskFeedOptions): TaskFeed {
  const { pool } = options;
  let started = false;
  let closed = false;
  let client: PoolClient | undefined;
  /** Gives the connection listening now back (destroyed), once. */
  let drop: (() => void) | undefined;
  let connecting: Promise<boolean> | undefined;
  let retryMs = FIRST_RETRY_MS;
  /** When the last connection that listened dropped, if one did. */
  let lostAt: number | undefined;
  let timer: NodeJS.Timeout | undefined;

  const retry = () => {
    if (closed || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      connecting = connect();
    }, retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
  };

  const connect = async (): Promise<boolean> => {
    let held: PoolClient | undefined;
    let lost = false;
    // Called once per connection, whichever of its error, its end or a failed query says so.
    const lose = (error?: unknown) => {
      if (lost) return;
      lost = true;
      if (client === held) {
        client = undefined;
        drop = undefined;
        lostAt ??= options.now();
      }
      held?.release(error instanceof Error ? error : true);
      retry();
    };
    try {
      held = await pool.connect();
      await listenOn(held, options, lose);
      if (closed) {
        lose();
        return false;
      }
      client = held;
      drop = () => lose();
      retryMs = FIRST_RETRY_MS;
      if (lostAt !== undefined) {
        const since = lostAt;
        lostAt = undefined;
        options.onReconnect(since);
      }
      return true;
    } catch (error) {
      lose(error);
      return false;
    } finally {
      connecting = undefined;
    }
  };

  return {
    start() {
      if (started || closed) return;
      started = true;
      connecting = connect();
    },
    async listening() {
      if (client !== undefined) return true;
      return connecting === undefined ? false : connecting;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await connecting;
      // Destroyed, not given back to the pool: its LISTEN and its name go with it.
      drop?.();
    },
  };
}
