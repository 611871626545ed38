import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** An exported name that the package's README does not document, and the entry point it is on. */
export interface UndocumentedExport {
  /** The `exports` key, such as `.` or `./internal`. */
  entry: string;
  /** The entry's barrel file, relative to the package folder. */
  file: string;
  name: string;
}

/** Entry points that are not public API: the manifest itself and workspace-only fixtures. */
const SKIPPED_ENTRIES = new Set(['./package.json', './testing']);

const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/**
 * Throws, naming every such name, when a name exported by one of a package's entry points (its
 * package.json `exports`, apart from `./package.json` and `./testing`) appears as a word in no
 * backticked span of its README's `## API` section.
 *
 * @example
 * await assertExportsDocumented(fileURLToPath(new URL('..', import.meta.url)));
 */
export async function assertExportsDocumented(packageDirectory: string): Promise<void> {
  const missing = await findUndocumentedExports(packageDirectory);
  if (missing.length === 0) return;
  const lines = [...groupByEntry(missing)].map(
    ([entry, names]) => `  '${entry}' (${names[0]?.file}): ${names.map((n) => n.name).join(', ')}`,
  );
  throw new Error(
    `${packageDirectory}: ${missing.length} exported name(s) not documented in backticks in ` +
      `README.md's "## API" section:\n${lines.join('\n')}`,
  );
}

/** Every name a package's public entry points export that its README's `## API` section lacks. */
export async function findUndocumentedExports(
  packageDirectory: string,
): Promise<UndocumentedExport[]> {
  const manifest = JSON.parse(await readFile(join(packageDirectory, 'package.json'), 'utf8'));
  const readme = await readFile(join(packageDirectory, 'README.md'), 'utf8');
  const documented = documentedNames(apiSection(readme, packageDirectory));
  const missing: UndocumentedExport[] = [];
  for (const [entry, file] of entryFiles(manifest.exports, packageDirectory)) {
    const source = await readFile(join(packageDirectory, file), 'utf8');
    for (const name of exportedNames(source, file)) {
      if (!documented.has(name)) missing.push({ entry, file, name });
    }
  }
  return missing;
}

/** The source file of each public entry point, from a package.json `exports` field. */
export function entryFiles(exports: unknown, packageDirectory: string): Map<string, string> {
  const entries = new Map<string, string>();
  if (typeof exports === 'string') {
    entries.set('.', exports);
    return entries;
  }
  if (typeof exports !== 'object' || exports === null) {
    throw new Error(`${packageDirectory}/package.json has no "exports" map`);
  }
  for (const [entry, target] of Object.entries(exports)) {
    if (SKIPPED_ENTRIES.has(entry)) continue;
    const file = sourceTarget(target);
    if (file === undefined) {
      throw new Error(
        `${packageDirectory}/package.json: exports '${entry}' points at no .ts source file`,
      );
    }
    entries.set(entry, file);
  }
  return entries;
}

/** The first `.ts` file a (possibly conditional) export target names. */
function sourceTarget(target: unknown): string | undefined {
  if (typeof target === 'string') return target.endsWith('.ts') ? target : undefined;
  if (typeof target !== 'object' || target === null) return undefined;
  for (const nested of Object.values(target)) {
    const file = sourceTarget(nested);
    if (file !== undefined) return file;
  }
  return undefined;
}

/**
 * The names a barrel exports: `export { a, type B, c as d } from '...'` and `export type { ... }`
 * lists, and local `export function|const|class|interface|type|enum` declarations. `export *`
 * and `export default` are refused: a barrel names every export.
 */
export function exportedNames(source: string, file = 'the barrel'): string[] {
  const code = withoutComments(source);
  if (/\bexport\s*\*/.test(code)) {
    throw new Error(`${file} uses \`export *\`: a barrel must name every export`);
  }
  if (/\bexport\s+default\b/.test(code)) {
    throw new Error(`${file} has a default export: a barrel must name every export`);
  }
  const names: string[] = [];
  for (const match of code.matchAll(/\bexport\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const specifier of (match[1] ?? '').split(',')) {
      const words = specifier.trim().split(/\s+/).filter(Boolean);
      if (words[0] === 'type') words.shift();
      const name = words.at(-1);
      if (name !== undefined) names.push(name);
    }
  }
  const declaration =
    /\bexport\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|var|class|abstract\s+class|interface|type|enum)\s+([A-Za-z_$][A-Za-z0-9_$]*)/g;
  for (const match of code.matchAll(declaration)) {
    if (match[1] !== undefined) names.push(match[1]);
  }
  return [...new Set(names)];
}

/** The README's `## API` section: from that heading to the next second-level heading. */
export function apiSection(readme: string, packageDirectory = '.'): string {
  const lines = readme.split('\n');
  const section: string[] = [];
  let inside = false;
  let fenced = false;
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (!fenced && /^##\s/.test(line)) {
      if (inside) break;
      inside = /^##\s+API\s*$/.test(line);
      continue;
    }
    if (inside) section.push(line);
  }
  if (!inside && section.length === 0) {
    throw new Error(`${packageDirectory}/README.md has no "## API" section`);
  }
  return section.join('\n');
}

/** Every identifier-like word inside a backticked span (inline code or a fenced block). */
export function documentedNames(markdown: string): Set<string> {
  const names = new Set<string>();
  for (const match of markdown.matchAll(/(`+)([\s\S]*?[^`])\1(?!`)/g)) {
    for (const word of (match[2] ?? '').matchAll(IDENTIFIER)) names.add(word[0]);
  }
  return names;
}

function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

function groupByEntry(missing: UndocumentedExport[]): Map<string, UndocumentedExport[]> {
  const groups = new Map<string, UndocumentedExport[]>();
  for (const item of missing) {
    const group = groups.get(item.entry) ?? [];
    group.push(item);
    groups.set(item.entry, group);
  }
  return groups;
}
