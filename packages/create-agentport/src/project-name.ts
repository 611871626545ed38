import { builtinModules } from 'node:module';
import { basename, resolve } from 'node:path';
import { CreateProjectError } from './create-project-error.ts';

const MAX_LENGTH = 214;
/** npm's rule for a new package's name: lower case, URL-safe, not starting with `.` or `_`. */
const PACKAGE_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;
const RESERVED = new Set(['node_modules', 'favicon.ico', ...builtinModules]);

/**
 * Why `name` cannot be an npm package's name, or undefined when it can (npm's rules for new
 * packages: at most 214 characters, lower case, URL-safe, no leading `.` or `_`, not a Node
 * built-in module's name).
 */
export function projectNameProblem(name: string): string | undefined {
  if (name === '') return 'it is empty';
  if (name.length > MAX_LENGTH) return `it is longer than ${MAX_LENGTH} characters`;
  if (name !== name.toLowerCase()) return 'it has upper-case letters';
  if (!PACKAGE_NAME.test(name)) {
    return "it may hold only lower-case letters, digits, '-', '.', '_' and '~', and not start with '.' or '_'";
  }
  if (RESERVED.has(name)) return 'it is reserved (a Node built-in module or npm name)';
  return undefined;
}

/**
 * The package name a project in `directory` gets: its folder's name made into a valid npm name
 * (lower case, no accents, runs of other characters as one `-`), as `My Agents` becomes
 * `my-agents`.
 * Throws a {@link CreateProjectError} `invalid_name` when nothing usable is left.
 */
export function projectNameFor(directory: string): string {
  const folder = basename(resolve(directory));
  const name = folder
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '') // accents: 'Été' is 'ete'
    .toLowerCase()
    .replace(/[^a-z0-9-._~]+/g, '-')
    .slice(0, MAX_LENGTH)
    .replace(/^[-._~]+/, '')
    .replace(/-+$/, '');
  const problem = projectNameProblem(name);
  if (problem !== undefined) {
    throw new CreateProjectError(
      'invalid_name',
      `Cannot make a package name of the folder name '${folder}' (${problem}): give one with --name`,
    );
  }
  return name;
}
