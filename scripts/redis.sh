#!/usr/bin/env bash
# Start/stop a private redis-server (Debian's package) on 127.0.0.1 for the Celery broker.
#
#   scripts/redis.sh install | start | stop | status
#
# `start` prints the matching `export CELERY_BROKER_URL=...` line on stdout:
# eval "$(scripts/redis.sh start)" sets it in your shell.
#
# Environment: REDIS_PORT (6379), NEARDUP_CACHE (<repo>/.cache) holds its data and log.
set -euo pipefail
PORT="${REDIS_PORT:-6379}"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${NEARDUP_CACHE:-$REPO/.cache}"
RUN_DIR="$CACHE/run/redis-$PORT"
log() { printf 'redis.sh: %s\n' "$*" >&2; }

install() {
  command -v redis-server >/dev/null && return 0
  log "installing Debian's redis-server"
  local sudo=(); [ "$(id -u)" = 0 ] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get install -y -q redis-server >/dev/null 2>&1 \
    || { "${sudo[@]}" apt-get update -q >/dev/null && "${sudo[@]}" apt-get install -y -q redis-server >/dev/null; }
}

status() { redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null | grep -q PONG; }

# What the clients need to reach this server (stdout: everything else goes to stderr).
print_exports() { printf 'export CELERY_BROKER_URL=redis://127.0.0.1:%s/0\n' "$PORT"; }

start() {
  install
  if status; then log "already answering on 127.0.0.1:$PORT"; print_exports; return 0; fi
  mkdir -p "$RUN_DIR"
  redis-server --bind 127.0.0.1 --port "$PORT" --daemonize yes --dir "$RUN_DIR" \
    --pidfile "$RUN_DIR/redis.pid" --logfile "$RUN_DIR/redis.log" \
    --appendonly yes --appendfsync everysec --save ""
  for _ in $(seq 100); do
    status && { log "ready on 127.0.0.1:$PORT"; print_exports; return 0; }
    sleep 0.1
  done
  log "redis did not start"; tail -n 20 "$RUN_DIR/redis.log" >&2; exit 1
}

stop() {
  status || return 0
  redis-cli -h 127.0.0.1 -p "$PORT" shutdown nosave >/dev/null 2>&1 || true
  for _ in $(seq 100); do status || { log "stopped"; return 0; }; sleep 0.1; done
}

case "${1:-}" in
  install) install ;; start) start ;; stop) stop ;; status) status ;;
  *) echo "usage: $0 install|start|stop|status" >&2; exit 2 ;;
esac
