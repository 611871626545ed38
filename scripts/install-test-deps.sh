#!/usr/bin/env bash
# Installs what the tests need on a fresh machine: Chromium (Debian's package, for the browser
# test of the SSE stream), pnpm, and the workspace's dependencies (which bring Node 24).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
npm install -g pnpm@10.34.9 >/dev/null
pnpm install --frozen-lockfile
