import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.ts';
import { openServeStores, postgresConfigOf } from './serve-stores.ts';

describe('the database serve runs on', () => {
  it('is the config store, else DATABASE_URL, else none (the in-memory stores)', () => {
    const store = { postgres: { url: 'postgres://db/agents', schema: 'gw' } };
    expect(postgresConfigOf({ store }, { DATABASE_URL: 'postgres://other/x' })).toEqual(
      store.postgres,
    );
    expect(postgresConfigOf({}, { DATABASE_URL: 'postgresql://db/agents' })).toEqual({
      url: 'postgresql://db/agents',
    });
    expect(postgresConfigOf({}, {})).toBeUndefined();
    expect(postgresConfigOf({}, { DATABASE_URL: '' })).toBeUndefined();
  });

  it('refuses a DATABASE_URL that is not a postgres:// URL, without repeating it', () => {
    const read = () => postgresConfigOf({}, { DATABASE_URL: 'mysql://root:secret@db/x' });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow('Invalid DATABASE_URL: must be a postgres:// URL');
  });

  it('names where it waits for the database, never its URL, while it cannot reach it', async () => {
    const lines: string[] = [];
    const controller = new AbortController();
    const logger = pino(
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          controller.abort();
          done();
        },
      }),
    );
    // Port 9 (discard) on loopback: nothing listens there.
    const url = 'postgres://postgres:secret@127.0.0.1:9/test';
    const opened = await openServeStores(
      { store: { postgres: { url } } },
      logger,
      controller.signal,
    );
    expect(opened).toBeUndefined();
    const [line] = lines;
    expect(JSON.parse(line ?? '{}')).toMatchObject({
      msg: 'database unreachable',
      host: '127.0.0.1:9',
      database: 'test',
      schema: 'agentport',
    });
    expect(line).not.toContain('secret');
  });
});
