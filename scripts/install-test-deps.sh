#!/usr/bin/env bash
# Installs what the tests need on a fresh machine: Chromium (Debian's package, for the browser
# test of the SSE stream), a PostgreSQL server on 127.0.0.1:5432 (Debian's package, for
# @agentport/postgres: user postgres without a password, database `test`), pnpm, and the
# workspace's dependencies (which bring Node 24).
#   scripts/install-test-deps.sh            everything
#   scripts/install-test-deps.sh postgres   the PostgreSQL server only
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"

# Whether a server answers on 127.0.0.1:5432 (pg_isready when installed, else a TCP probe).
postgres_answers() {
  if command -v pg_isready >/dev/null 2>&1; then
    pg_isready -q -h 127.0.0.1 -p 5432 -t 2
  else
    timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/5432' 2>/dev/null
  fi
}

# A server for the tests when none answers: Debian's cluster, trusting local TCP connections.
ensure_postgres() {
  if postgres_answers; then
    return 0
  fi
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
  fi
  local version
  version="$(ls /etc/postgresql | sort -V | tail -n 1)"
  local hba="/etc/postgresql/$version/main/pg_hba.conf"
  if ! $sudo grep -q '^# agentport tests' "$hba"; then
    # First, so these rules win over Debian's scram-sha-256 ones for loopback.
    $sudo sed -i '1i # agentport tests: trust local TCP connections\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
  fi
  $sudo pg_ctlcluster "$version" main start 2>/dev/null ||
    $sudo pg_ctlcluster "$version" main reload
  for _ in $(seq 1 30); do
    postgres_answers && break
    sleep 1
  done
  if ! psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'test'" | grep -q 1; then
    createdb -h 127.0.0.1 -U postgres test
  fi
}

if [ "${1:-}" = postgres ]; then
  ensure_postgres
  exit 0
fi

if [ ! -x /usr/bin/chromium ]; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
ensure_postgres
npm install -g pnpm@10.34.9 >/dev/null
pnpm install --frozen-lockfile
