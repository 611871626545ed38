import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { CreateProjectError } from './create-project-error.ts';
import { ownVersion, projectFiles } from './project-files.ts';
import { projectNameFor, projectNameProblem } from './project-name.ts';

/** What {@link createProject} takes. */
export interface CreateProjectOptions {
  /** Where to write the project: a folder that does not exist yet, or an empty one. */
  directory: string;
  /** Its package name (default: made from the folder's name, as `My Agents` becomes `my-agents`). */
  name?: string | undefined;
}

/** What {@link createProject} wrote. */
export interface CreatedProject {
  /** The project's folder, absolute. */
  directory: string;
  /** Its package name. */
  name: string;
  /** The files written, relative to `directory` and `/`-separated, `package.json` first. */
  files: string[];
}

/** Entries an otherwise empty folder may hold: a `git init` done first. */
const IGNORED_ENTRIES = new Set(['.git']);

/** Throws unless `directory` is missing or an empty folder. */
async function assertWritable(directory: string, shown: string): Promise<void> {
  const found = await stat(directory).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (found === undefined) return;
  if (!found.isDirectory()) {
    throw new CreateProjectError('not_a_directory', `${shown} exists and is not a folder`);
  }
  const entries = (await readdir(directory)).filter((entry) => !IGNORED_ENTRIES.has(entry));
  if (entries.length > 0) {
    throw new CreateProjectError(
      'directory_not_empty',
      `${shown} is not empty (it holds ${entries.length === 1 ? `'${entries[0]}'` : `${entries.length} entries`}): choose a new folder or empty it first`,
    );
  }
}

/** The package name to use: `name` checked, or one made from the folder's name. */
function chooseName(directory: string, name: string | undefined): string {
  if (name === undefined) return projectNameFor(directory);
  const problem = projectNameProblem(name);
  if (problem !== undefined) {
    throw new CreateProjectError(
      'invalid_name',
      `'${name}' is not a valid package name: ${problem}`,
    );
  }
  return name;
}

/**
 * Writes a new AgentPort project into `directory` (created if missing; an existing one must be
 * empty): `package.json` depending on `@agentport/gateway` and `@agentport/core` at this
 * package's version, `agentport.config.ts`, one agent with a tool in `src/agent.ts`, its test,
 * a README, a tsconfig for editors, a Dockerfile, `.dockerignore` and `.gitignore`. Throws a
 * {@link CreateProjectError} when the folder is not empty or the name is not a valid package name,
 * having written nothing.
 *
 * @example
 * const { name, files } = await createProject({ directory: 'my-agents' });
 * // name: 'my-agents'; files: ['package.json', 'README.md', 'agentport.config.ts', ...]
 */
export async function createProject(options: CreateProjectOptions): Promise<CreatedProject> {
  const directory = resolve(options.directory);
  const name = chooseName(directory, options.name);
  await assertWritable(directory, options.directory);
  const files = await projectFiles(name, await ownVersion());
  await mkdir(directory, { recursive: true });
  for (const file of files) {
    const path = join(directory, ...file.path.split('/'));
    await mkdir(dirname(path), { recursive: true });
    // `wx`: never overwrite a file that appeared since the folder was found empty.
    await writeFile(path, file.content, { flag: 'wx' });
  }
  return { directory, name, files: files.map((file) => file.path) };
}
