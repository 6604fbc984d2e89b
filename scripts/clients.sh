#!/usr/bin/env bash
# Install the pipeline tools the tests point at `neardup serve` (tests/integration/
# test_pipeline_clients.py): npm's elasticdump under the cache, Debian's rsyslog-elasticsearch.
#
#   scripts/clients.sh install
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${NEARDUP_CACHE:-$REPO/.cache}"
ELASTICDUMP_VERSION="${ELASTICDUMP_VERSION:-6.125.1}"

log() { printf 'clients.sh: %s\n' "$*" >&2; }

install() {
  if ! [ -x "$CACHE/npm/node_modules/.bin/elasticdump" ]; then
    command -v npm >/dev/null || { log "npm is required for elasticdump"; exit 1; }
    mkdir -p "$CACHE/npm"
    log "installing elasticdump $ELASTICDUMP_VERSION from npm"
    npm install --prefix "$CACHE/npm" --no-audit --no-fund --silent "elasticdump@$ELASTICDUMP_VERSION" >&2
  fi
  if ! [ -e /usr/lib/x86_64-linux-gnu/rsyslog/omelasticsearch.so ] && ! ls /usr/lib/*/rsyslog/omelasticsearch.so >/dev/null 2>&1; then
    log "installing rsyslog-elasticsearch from Debian"
    local sudo=(); [ "$(id -u)" = 0 ] || sudo=(sudo)
    "${sudo[@]}" apt-get install -y -q rsyslog rsyslog-elasticsearch >/dev/null 2>&1 \
      || { "${sudo[@]}" apt-get update -q >/dev/null && "${sudo[@]}" apt-get install -y -q rsyslog rsyslog-elasticsearch >/dev/null; }
  fi
}

case "${1:-}" in
  install) install ;;
  *) echo "usage: $0 install" >&2; exit 2 ;;
esac
