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
