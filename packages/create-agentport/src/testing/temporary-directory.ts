import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';

/**
 * A function that makes a new empty folder under the system's temporary folder (outside the
 * repository), each removed after the test that made it (`each`, the default) or once the file's
 * tests are done (`all`, for folders made in `beforeAll`).
 */
export function useTemporaryDirectories(
  removeAfter: 'each' | 'all' = 'each',
): () => Promise<string> {
  const made: string[] = [];
  (removeAfter === 'each' ? afterEach : afterAll)(async () => {
    await Promise.all(made.splice(0).map((path) => rm(path, { recursive: true, force: true })));
  });
  return async () => {
    const path = await mkdtemp(join(tmpdir(), 'create-agentport-'));
    made.push(path);
    return path;
  };
}
