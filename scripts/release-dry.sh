#!/usr/bin/env bash
# Rehearses a release without publishing anything: copies the repository's files (tracked, and
# untracked but not ignored) to a throwaway folder, installs there, versions the copy with the
# pending changesets (`pnpm changeset version`), checks that every publishable package is on the
# one version line, then packs each as `pnpm -r publish` would (its prepack builds it) with
# `--dry-run`. Fails when any step fails; the repository is left as it was and the copy removed.
set -euo pipefail
cd "$(dirname "$0")/.."
copy=$(mktemp -d "${TMPDIR:-/tmp}/agentport-release-dry.XXXXXX")
trap 'rm -rf "$copy"' EXIT

# A tracked file deleted in the working tree is still listed by --cached: copy what exists.
git ls-files -z --cached --others --exclude-standard --deduplicate |
  while IFS= read -r -d '' file; do
    if [ -e "$file" ] || [ -L "$file" ]; then printf '%s\0' "$file"; fi
  done |
  tar --create --null --files-from=- | tar --extract --directory="$copy"
cd "$copy"
echo "release:dry: a copy of the repository in $copy"

pnpm install --frozen-lockfile --prefer-offline --reporter=silent
pnpm changeset version
pnpm ls --recursive --depth -1 --json >workspace.json
node -e "
  const fs = require('node:fs');
  const fixed = JSON.parse(fs.readFileSync('.changeset/config.json', 'utf8')).fixed.flat();
  const published = JSON.parse(fs.readFileSync('workspace.json', 'utf8')).filter((entry) => !entry.private);
  const problems = [];
  for (const { name, version, path } of published) {
    const changelog = fs.existsSync(path + '/CHANGELOG.md') ? fs.readFileSync(path + '/CHANGELOG.md', 'utf8') : '';
    const lines = (changelog.split(/^## /m)[1] ?? '').split('\n').filter((line) => /^\s*- /.test(line)).length;
    console.log('release:dry: ' + name + '@' + version + ', ' + lines + ' lines in its CHANGELOG entry');
    if (!fixed.includes(name)) problems.push(name + ' is published but not in the fixed group of .changeset/config.json');
  }
  if (new Set(published.map(({ version }) => version)).size > 1) problems.push('the published packages are not all at one version');
  for (const problem of problems) console.error('release:dry: ' + problem);
  process.exit(problems.length === 0 ? 0 : 1);
"
# --force: pack every package even when its version is already on the registry (a rehearsal with
# no pending changeset), so the rehearsal always checks them all.
pnpm --recursive publish --dry-run --no-git-checks --force 2>&1 | tee publish.log
node -e "
  const fs = require('node:fs');
  const log = fs.readFileSync('publish.log', 'utf8');
  const published = JSON.parse(fs.readFileSync('workspace.json', 'utf8')).filter((entry) => !entry.private);
  const missing = published.filter(({ name, version }) => !log.includes('+ ' + name + '@' + version));
  for (const { name } of missing) console.error('release:dry: ' + name + ' was not packed');
  process.exit(missing.length === 0 ? 0 : 1);
"
echo "release:dry: every publishable package versioned, built and packed (nothing published)"
