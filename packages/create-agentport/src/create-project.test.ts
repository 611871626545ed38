import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createProject } from './create-project.ts';
import { CreateProjectError } from './create-project-error.ts';
import { TEMPLATE_NAMES, TEMPLATES_DIRECTORY } from './project-files.ts';
import { useTemporaryDirectories } from './testing/temporary-directory.ts';

const temporaryDirectory = useTemporaryDirectories();
const manifest = JSON.parse(
  await readFile(new URL('../package.json', import.meta.url), 'utf8'),
) as {
  version: string;
  files: string[];
};

const FILES = [
  'package.json',
  'README.md',
  'agentport.config.ts',
  'src/agent.ts',
  'test/agent.test.ts',
  'tsconfig.json',
  'Dockerfile',
  '.dockerignore',
  '.gitignore',
];

/** Every file under `directory`, relative and `/`-separated, sorted. */
async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

describe('createProject', () => {
  it('writes exactly the project files, and says which', async () => {
    const directory = join(await temporaryDirectory(), 'my-agents');
    const created = await createProject({ directory });
    expect(created).toEqual({ directory, name: 'my-agents', files: FILES });
    expect(await filesUnder(directory)).toEqual([...FILES].sort());
  });

  it('ships every template it writes and no other', async () => {
    expect((await filesUnder(fileURLToPath(TEMPLATES_DIRECTORY))).sort()).toEqual(
      [...TEMPLATE_NAMES].sort(),
    );
    expect(manifest.files).toContain('templates');
  });

  it("writes a package.json with the project's name and AgentPort at this package's version", async () => {
    const directory = join(await temporaryDirectory(), 'My Agents');
    await createProject({ directory });
    const written = JSON.parse(await readFile(join(directory, 'package.json'), 'utf8'));
    expect(written).toEqual({
      name: 'my-agents',
      version: '0.1.0',
      private: true,
      type: 'module',
      engines: { node: '>=22.18' },
      scripts: {
        start: 'exec agentport serve',
        test: 'node --test test/*.test.ts',
        typecheck: 'tsc',
      },
      dependencies: {
        '@agentport/core': `^${manifest.version}`,
        '@agentport/gateway': `^${manifest.version}`,
      },
      devDependencies: { '@types/node': '^24.0.0', typescript: '^5.9.3' },
    });
  });

  it('names the project in its README and Dockerfile, and uses the given name', async () => {
    const directory = join(await temporaryDirectory(), 'project');
    await createProject({ directory, name: '@me/agents' });
    const readme = await readFile(join(directory, 'README.md'), 'utf8');
    expect(readme.split('\n')[0]).toBe('# @me/agents');
    expect(await readFile(join(directory, 'Dockerfile'), 'utf8')).toContain(
      'docker build -t @me/agents .',
    );
    for (const file of FILES) {
      expect(await readFile(join(directory, file), 'utf8')).not.toContain('{{');
    }
  });

  it('writes the dotfiles under their dotted names', async () => {
    const directory = await temporaryDirectory();
    await createProject({ directory, name: 'dots' });
    expect(await readFile(join(directory, '.gitignore'), 'utf8')).toMatch(/^node_modules$/m);
    expect(await readFile(join(directory, '.dockerignore'), 'utf8')).toMatch(/^node_modules$/m);
  });

  it('writes into an existing empty folder, or one holding only .git', async () => {
    const directory = await temporaryDirectory();
    await mkdir(join(directory, '.git'));
    const created = await createProject({ directory, name: 'agents' });
    expect(created.files).toEqual(FILES);
  });

  it('refuses a folder that is not empty, and writes nothing', async () => {
    const directory = await temporaryDirectory();
    await writeFile(join(directory, 'notes.txt'), 'mine');
    const creating = createProject({ directory, name: 'agents' });
    await expect(creating).rejects.toThrow(CreateProjectError);
    await expect(creating).rejects.toMatchObject({
      code: 'directory_not_empty',
      message: `${directory} is not empty (it holds 'notes.txt'): choose a new folder or empty it first`,
    });
    expect(await readdir(directory)).toEqual(['notes.txt']);
  });

  it('counts what a non-empty folder holds when it holds more than one entry', async () => {
    const directory = await temporaryDirectory();
    await writeFile(join(directory, 'a'), '');
    await mkdir(join(directory, 'b'));
    await expect(createProject({ directory, name: 'agents' })).rejects.toThrow(
      'is not empty (it holds 2 entries)',
    );
  });

  it('refuses a path that is a file', async () => {
    const file = join(await temporaryDirectory(), 'file');
    await writeFile(file, '');
    await expect(createProject({ directory: file, name: 'agents' })).rejects.toMatchObject({
      code: 'not_a_directory',
      message: `${file} exists and is not a folder`,
    });
  });

  it('refuses an invalid name before touching the disk', async () => {
    const directory = join(await temporaryDirectory(), 'never');
    await expect(createProject({ directory, name: 'My Agents' })).rejects.toMatchObject({
      code: 'invalid_name',
      message: "'My Agents' is not a valid package name: it has upper-case letters",
    });
    await expect(readdir(directory)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
