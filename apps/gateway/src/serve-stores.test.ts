import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.ts';
import { postgresConfigOf } from './serve-stores.ts';

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
});
