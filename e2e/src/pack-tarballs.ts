import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

declare module 'vitest' {
  export interface ProvidedContext {
    /** Every publishable package's tarball, by package name. */
    tarballs: Record<string, string>;
    /** The gateway's bundled artifact (its `dist/cli.js`, built when it was packed). */
    artifact: string;
  }
}

/** The folders of the workspace's publishable (not private) packages. */
async function publishableFolders(): Promise<string[]> {
  const folders: string[] = [];
  for (const parent of ['packages', 'apps']) {
    for (const entry of await readdir(join(ROOT, parent), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const folder = join(ROOT, parent, entry.name);
      const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')) as {
        private?: boolean;
      };
      if (manifest.private !== true) folders.push(folder);
    }
  }
  return folders;
}

/**
 * Packs every publishable package as `pnpm publish` would (each builds first, in `prepack`), once
 * for all the test files, and gives them the tarballs' paths and the gateway's artifact.
 */
export default async function packTarballs(project: TestProject): Promise<() => Promise<void>> {
  const destination = await mkdtemp(join(tmpdir(), 'agentport-tarballs-'));
  const tarballs: Record<string, string> = {};
  for (const folder of await publishableFolders()) {
    const { name } = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')) as {
      name: string;
    };
    const { stdout } = await run('pnpm', ['pack', '--pack-destination', destination], {
      cwd: folder,
    });
    const tarball = stdout.trim().split('\n').at(-1) as string;
    tarballs[name] = tarball.startsWith('/') ? tarball : join(destination, tarball);
  }
  project.provide('tarballs', tarballs);
  // The gateway's build, run by its prepack, also bundles the artifact; a copy of it is kept.
  const artifact = join(destination, 'artifact-cli.js');
  await copyFile(join(ROOT, 'apps/gateway/dist/cli.js'), artifact);
  project.provide('artifact', artifact);
  return () => rm(destination, { recursive: true, force: true });
}
