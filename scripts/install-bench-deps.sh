#!/usr/bin/env bash
# Installs the load generator the benchmarks drive the servers with (wrk, Debian's package) when
# it is missing; `pnpm bench` runs this first.
set -euo pipefail
if ! command -v wrk >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq wrk >/dev/null
fi
