// Checks the direction of dependencies between AgentPort's packages (ARCHITECTURE.md, conventions
// item 1) from what their sources really import: every import, export-from and import('...') of
// each packages/* and apps/* package's src/**/*.ts, read with TypeScript's own pre-processor (so
// strings and comments that merely mention a package do not count).
//
//   node scripts/check-layering.mjs [repository root]
//
// Fails (exit 1, one line per violation) when core imports any @agentport package, http anything
// of ours but core, a surface (rest-sse, a2a-http, a2a-sdk, compat) anything but core and http,
// postgres or a framework adapter anything but core, any package the gateway, a source reaches
// into another package by a relative path, a package imports an @agentport package its
// package.json does not list, or lists one in `dependencies` that no non-test source imports.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SCOPE = '@agentport/';
const GATEWAY = '@agentport/gateway';
const SURFACES = ['rest-sse', 'a2a-http', 'a2a-sdk', 'compat'];
const CORE_ONLY = ['postgres', 'ai-sdk', 'openai-agents', 'langgraph'];

/** What each package may import of ours, by name; a package not named may import any but the gateway. */
const ALLOWED = new Map([
  ['@agentport/core', []],
  ['@agentport/http', ['@agentport/core']],
  ...SURFACES.map((name) => [`${SCOPE}${name}`, ['@agentport/core', '@agentport/http']]),
  ...CORE_ONLY.map((name) => [`${SCOPE}${name}`, ['@agentport/core']]),
]);

/** The folders holding the packages the rules apply to. */
const PACKAGE_FOLDERS = ['packages', 'apps'];

/** The package a bare specifier names: `@agentport/core/internal` -> `@agentport/core`. */
export function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) {
    return undefined;
  }
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Every `src/**\/*.ts` file under a package folder. */
function sourceFiles(folder) {
  const files = [];
  const walk = (directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push(path);
    }
  };
  const src = join(folder, 'src');
  if (existsSync(src)) walk(src);
  return files.sort();
}

/** The specifiers a source imports, with their line numbers. */
export function importsOf(source) {
  const { importedFiles } = ts.preProcessFile(source, true, true);
  return importedFiles.map(({ fileName, pos }) => ({
    specifier: fileName,
    line: source.slice(0, pos).split('\n').length,
  }));
}

function isTest(path) {
  return /\.test\.ts$/.test(path) || path.split(sep).includes('testing');
}

/** The packages under a repository root: folder, manifest and name. */
function packagesOf(root) {
  const found = [];
  for (const parent of PACKAGE_FOLDERS) {
    const base = join(root, parent);
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base, { withFileTypes: true })) {
      const manifestPath = join(base, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
      found.push({ folder: join(base, entry.name), manifest, name: manifest.name });
    }
  }
  return found.sort((a, b) => a.folder.localeCompare(b.folder));
}

/** Why one import breaks the layering, or undefined when it does not. */
function layeringViolation(name, imported) {
  if (imported === GATEWAY && name !== GATEWAY) {
    return 'no package imports the gateway (it composes the others)';
  }
  const allowed = ALLOWED.get(name);
  if (allowed === undefined || allowed.includes(imported)) return undefined;
  return allowed.length === 0
    ? `${name} imports no @agentport package`
    : `${name} may import only ${allowed.join(' and ')}`;
}

/** The violations of one package: `{ file, line, message }`, file relative to the root. */
function checkPackage(root, { folder, manifest, name }) {
  const violations = [];
  const listed = new Set(
    ['dependencies', 'devDependencies', 'peerDependencies'].flatMap((field) =>
      Object.keys(manifest[field] ?? {}),
    ),
  );
  const importedOutsideTests = new Set();
  for (const path of sourceFiles(folder)) {
    const file = relative(root, path);
    for (const { specifier, line } of importsOf(readFileSync(path, 'utf8'))) {
      const report = (message) => violations.push({ file, line, message });
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(path), specifier);
        if (relative(folder, target).startsWith('..')) {
          report(`'${specifier}' reaches outside ${name} by a relative path; import its package`);
        }
        continue;
      }
      const imported = packageOf(specifier);
      if (imported === undefined || !imported.startsWith(SCOPE) || imported === name) continue;
      if (!isTest(path)) importedOutsideTests.add(imported);
      const layering = layeringViolation(name, imported);
      if (layering !== undefined) report(`imports '${specifier}': ${layering}`);
      if (!listed.has(imported)) {
        report(`imports '${specifier}', which ${name}'s package.json does not list`);
      }
    }
  }
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    if (!dependency.startsWith(SCOPE) || importedOutsideTests.has(dependency)) continue;
    violations.push({
      file: relative(root, join(folder, 'package.json')),
      line: 0,
      message: `lists ${dependency} in dependencies, but no source outside tests imports it (drop it, or make it a devDependency)`,
    });
  }
  return violations;
}

/** Every violation in a repository: `{ file, line, message }`. */
export function checkLayering(root) {
  return packagesOf(root).flatMap((pkg) => checkPackage(root, pkg));
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const violations = checkLayering(root);
  for (const { file, line, message } of violations) {
    console.error(`${file}${line > 0 ? `:${line}` : ''}: ${message}`);
  }
  if (violations.length > 0) {
    console.error(`check-layering: ${violations.length} violation(s)`);
    process.exit(1);
  }
  console.log(`check-layering: ${packagesOf(root).length} packages, layering ok`);
}
