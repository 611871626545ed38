#!/usr/bin/env bash
# Packs the package in the current directory the way `pnpm publish` would (its `prepack` builds
# it, publishConfig is applied) and checks the tarball: every file its package.json names as an
# entry point is in it, the metadata a registry page shows is set, its README has no link that only
# resolves inside the repository, and publint and Are the Types Wrong pass.
set -euo pipefail
package=$(basename "$PWD")
fail() {
  echo "$package: $*" >&2
  exit 1
}
# Without a build before packing, `pnpm pack` and `pnpm publish` pack whatever dist/ holds: on a
# fresh clone, no code at all.
node -e "process.exit(require('./package.json').scripts?.prepack ? 0 : 1)" ||
  fail 'no prepack script: it must build the package (pnpm run build) so a tarball always holds its code'
destination=$(mktemp -d)
trap 'rm -rf "$destination"' EXIT
pnpm pack --pack-destination "$destination" >/dev/null
tarball=$(ls "$destination"/*.tgz)
mkdir "$destination/unpacked"
tar -xzf "$tarball" -C "$destination/unpacked"
# The checks read the package.json inside the tarball: the one publishConfig has been applied to.
node --input-type=module - "$destination/unpacked/package" "$package" <<'EOF'
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const [root, packageName] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const problems = [];

const packed = readdirSync(root, { recursive: true })
  .filter((file) => statSync(join(root, file)).isFile())
  .map((file) => relative(root, join(root, file)).split('\\').join('/'));

// Every string under exports (any condition, any subpath), main, module, types, typings and bin.
const entryPoints = [];
const collect = (field, value) => {
  if (typeof value === 'string') entryPoints.push({ field, path: value });
  else if (Array.isArray(value)) value.forEach((item, index) => collect(`${field}[${index}]`, item));
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) collect(`${field}[${JSON.stringify(key)}]`, item);
};
for (const field of ['exports', 'main', 'module', 'types', 'typings', 'bin']) collect(field, manifest[field]);
const bins = new Set(entryPoints.filter(({ field }) => field.startsWith('bin')).map(({ path }) => path));
for (const { field, path } of entryPoints) {
  const normal = path.replace(/^\.\//, '');
  if (normal.includes('*')) {
    const escaped = normal.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*');
    const pattern = new RegExp(`^${escaped}$`);
    if (!packed.some((file) => pattern.test(file))) problems.push(`${field} (${path}) matches no file in the tarball`);
  } else if (!packed.includes(normal)) {
    problems.push(`${field} names ${path}, which is not in the tarball`);
  } else if (bins.has(path) && !readFileSync(join(root, normal), 'utf8').startsWith('#!')) {
    problems.push(`${field} names ${path}, which has no #! line, so npx could not run it`);
  }
}
if (entryPoints.length === 0) problems.push('its package.json names no entry point (exports, main or bin)');

// What the registry's page shows and what installers check.
const metadata = {
  license: typeof manifest.license === 'string' && manifest.license !== '',
  repository:
    typeof manifest.repository?.url === 'string' &&
    manifest.repository.type === 'git' &&
    typeof manifest.repository.directory === 'string',
  homepage: typeof manifest.homepage === 'string' && /^https:\/\//.test(manifest.homepage),
  bugs: typeof (manifest.bugs?.url ?? manifest.bugs) === 'string',
  keywords: Array.isArray(manifest.keywords) && manifest.keywords.length > 0,
  'engines.node': typeof manifest.engines?.node === 'string',
};
for (const [field, present] of Object.entries(metadata))
  if (!present) problems.push(`package.json lacks ${field}`);

// The README is the package's page on the registry, where a relative link resolves nowhere.
const readme = packed.find((file) => /^readme(\.md)?$/i.test(file));
if (readme === undefined) problems.push('the tarball has no README.md');
else {
  const text = readFileSync(join(root, readme), 'utf8')
    .replace(/^ {0,3}(`{3,}|~{3,})[^]*?^ {0,3}\1/gm, '')
    .replace(/(`+)[^]*?\1/g, '');
  const targets = [
    ...text.matchAll(/\]\(\s*<?([^)\s>]*)/g),
    ...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)/gm),
    ...text.matchAll(/\b(?:href|src)\s*=\s*["']([^"']*)["']/gi),
  ].map((match) => match[1]);
  for (const target of targets)
    if (!/^(https?:\/\/|mailto:|#)/i.test(target))
      problems.push(`README links to ${target || '(nothing)'}, which resolves only inside the repository: use an https:// URL`);
}

for (const problem of problems) console.error(`${packageName}: ${problem}`);
process.exit(problems.length === 0 ? 0 : 1);
EOF
publint run "$tarball" --strict
# A package with no importable entry point (a bin only) has no types for attw to check.
if node -e "const p = require('$destination/unpacked/package/package.json'); process.exit(p.exports || p.main ? 0 : 1)"; then
  attw "$tarball" --profile esm-only
fi
# A declaration the builder could not resolve falls back to `any` (`{ [x: string]: any }`), and the
# published types lose what the source had; none is written on purpose.
# The declarations the tarball holds, wherever under its dist/ they are (the gateway's: dist/lib).
declarations=$(find "$destination/unpacked/package" -name '*.d.ts' -not -path '*/node_modules/*')
if [ -n "$declarations" ] &&
  grep -nE '(:|<|\||,)\s*any\b' $declarations | grep -vE '^[^:]+:[0-9]+:\s*(\*|//|/\*)'; then
  fail 'declarations fell back to any (above)'
fi
# A library whose values cross the package's API both ways (a user's zod schemas, a user's Hono
# app) must be the user's own copy: a peer dependency. As a dependency, a user on another version
# of it gets a second copy, and their schemas or apps no longer type-check against ours.
for shared in zod hono; do
  if [ -n "$declarations" ] && grep -qE "from ['\"]${shared}['\"]" $declarations &&
    ! node -e "const p = require('./package.json'); process.exit(p.peerDependencies?.['${shared}'] && !p.dependencies?.['${shared}'] ? 0 : 1)"; then
    fail "its declarations name ${shared}, which must be a peer dependency (not a dependency)"
  fi
done
