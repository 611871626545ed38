#!/usr/bin/env bash
# Tests scripts/check-publish.sh on small fixture packages outside the repository: a complete one
# passes, and each one missing an entry point, its metadata, its prepack or a registry-safe README
# fails with the reason. Run by `pnpm test` (the root's test:scripts); needs publint and attw on
# PATH, as `pnpm run` gives them.
set -euo pipefail
check=$(cd "$(dirname "$0")" && pwd)/check-publish.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# Writes a complete package to $work/$1 (prepack builds dist/, as the real packages do), then lets
# the caller break it.
fixture() {
  local folder="$work/$1"
  mkdir -p "$folder"
  cat >"$folder/package.json" <<'EOF'
{
  "name": "fixture",
  "version": "0.0.0",
  "description": "A fixture package for scripts/check-publish.test.sh.",
  "keywords": ["fixture"],
  "homepage": "https://github.com/agentport/agentport#readme",
  "bugs": "https://github.com/agentport/agentport/issues",
  "repository": { "type": "git", "url": "git+https://github.com/agentport/agentport.git", "directory": "fixture" },
  "license": "MIT",
  "type": "module",
  "engines": { "node": ">=22.12" },
  "exports": { ".": { "types": "./dist/index.d.ts", "default": "./dist/index.js" }, "./package.json": "./package.json" },
  "bin": { "fixture": "./dist/cli.js" },
  "files": ["dist"],
  "scripts": { "prepack": "node build.js" }
}
EOF
  cat >"$folder/build.js" <<'EOF'
import { mkdirSync, writeFileSync } from 'node:fs';
mkdirSync('dist', { recursive: true });
writeFileSync('dist/index.js', 'export const answer = 42;\n');
writeFileSync('dist/index.d.ts', 'export declare const answer: number;\n');
writeFileSync('dist/cli.js', '#!/usr/bin/env node\nconsole.log(42);\n');
EOF
  printf '# fixture\n\nSee [the docs](https://github.com/agentport/agentport#readme), [usage](#usage)\nand `[not a link](here)`.\n\n```md\n[in a code block](packages/core)\n```\n\n## Usage\n' >"$folder/README.md"
  echo MIT >"$folder/LICENSE"
}

# Edits the fixture's package.json with a JavaScript function of the parsed manifest `p`.
edit() {
  node -e "const fs = require('node:fs'); const f = '$work/$1/package.json'; const p = JSON.parse(fs.readFileSync(f, 'utf8')); $2; fs.writeFileSync(f, JSON.stringify(p));"
}

# expect <fixture> pass | <message the check must print>
expect() {
  local output status=0
  output=$(cd "$work/$1" && bash "$check" 2>&1) || status=$?
  if [ "$2" = pass ]; then
    if [ "$status" != 0 ]; then
      echo "not ok: $1 should pass check-publish; it failed with:" >&2
      echo "$output" >&2
      failures=$((failures + 1))
      return
    fi
  elif [ "$status" = 0 ] || [[ "$output" != *"$2"* ]]; then
    echo "not ok: $1 should fail check-publish with '$2'; it exited $status with:" >&2
    echo "$output" >&2
    failures=$((failures + 1))
    return
  fi
  echo "ok: $1"
}

fixture complete
expect complete pass

fixture missing-export
edit missing-export "p.exports['./extra'] = { types: './dist/index.d.ts', default: './dist/extra.js' }"
expect missing-export "exports[\"./extra\"][\"default\"] names ./dist/extra.js, which is not in the tarball"

fixture missing-types
edit missing-types "p.types = './dist/types.d.ts'"
expect missing-types 'types names ./dist/types.d.ts, which is not in the tarball'

fixture missing-bin
edit missing-bin "p.bin = { fixture: './src/cli.ts' }"
expect missing-bin 'bin["fixture"] names ./src/cli.ts, which is not in the tarball'

# The workspace's exports point at src/, publishConfig's at dist/: the tarball's own manifest counts.
fixture publish-config
edit publish-config "p.publishConfig = { exports: { '.': { types: './dist/index.d.ts', default: './dist/gone.js' } } }"
expect publish-config 'names ./dist/gone.js, which is not in the tarball'

fixture no-prepack
edit no-prepack "delete p.scripts.prepack"
expect no-prepack 'no prepack script'

fixture no-metadata
edit no-metadata "delete p.repository; delete p.keywords; delete p.engines"
expect no-metadata 'package.json lacks repository'

fixture relative-link
fixture relative-link
printf '# fixture\n\nSee [core](packages/core) and [the root](../../README.md).\n' >"$work/relative-link/README.md"
expect relative-link 'README links to packages/core, which resolves only inside the repository'

if [ "$failures" != 0 ]; then
  echo "check-publish.test.sh: $failures failed" >&2
  exit 1
fi
