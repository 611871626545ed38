#!/usr/bin/env bash
# Packs the package in the current directory the way `pnpm publish` would (publishConfig applied)
# and checks the tarball with publint and Are the Types Wrong. Run after `pnpm build`.
set -euo pipefail
destination=$(mktemp -d)
trap 'rm -rf "$destination"' EXIT
pnpm pack --pack-destination "$destination" >/dev/null
tarball=$(ls "$destination"/*.tgz)
publint run "$tarball" --strict
attw "$tarball" --profile esm-only
# A declaration the builder could not resolve falls back to `any` (`{ [x: string]: any }`), and the
# published types lose what the source had; none is written on purpose.
if grep -nE '(:|<|\||,)\s*any\b' dist/*.d.ts | grep -vE '^[^:]+:[0-9]+:\s*(\*|//|/\*)'; then
  echo "$(basename "$PWD"): declarations fell back to any (above)" >&2
  exit 1
fi
# A library whose values cross the package's API both ways (a user's zod schemas, a user's Hono
# app) must be the user's own copy: a peer dependency. As a dependency, a user on another version
# of it gets a second copy, and their schemas or apps no longer type-check against ours.
for shared in zod hono; do
  if grep -qE "from ['\"]${shared}['\"]" dist/*.d.ts &&
    ! node -e "const p = require('./package.json'); process.exit(p.peerDependencies?.['${shared}'] && !p.dependencies?.['${shared}'] ? 0 : 1)"; then
    echo "$(basename "$PWD"): its declarations name ${shared}, which must be a peer dependency (not a dependency)" >&2
    exit 1
  fi
done
