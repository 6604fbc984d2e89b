#!/usr/bin/env bash
# Fetch, start, wait for and stop a single-node OpenSearch on 127.0.0.1.
#
#   scripts/opensearch.sh install   fetch the integ-test zip from Maven Central (cached) and unpack
#   scripts/opensearch.sh start     install if needed, start in the background, wait for yellow/green;
#                                   prints the matching `export OPENSEARCH_URL=...` line on stdout:
#                                   eval "$(scripts/opensearch.sh start)" sets it in your shell
#   scripts/opensearch.sh stop      stop the node started by this script
#   scripts/opensearch.sh status    exit 0 when the node answers
#
# Environment: OPENSEARCH_VERSION (2.19.1), OPENSEARCH_PORT (9200), OPENSEARCH_HEAP (512m),
# NEARDUP_CACHE (<repo>/.cache) holds the unpacked distribution, data and logs.
set -euo pipefail

VERSION="${OPENSEARCH_VERSION:-2.19.1}"
PORT="${OPENSEARCH_PORT:-9200}"
HEAP="${OPENSEARCH_HEAP:-512m}"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${NEARDUP_CACHE:-$REPO/.cache}"
HOME_DIR="$CACHE/opensearch-$VERSION"
RUN_DIR="$CACHE/run/opensearch-$PORT"
PID_FILE="$RUN_DIR/opensearch.pid"
URL="http://127.0.0.1:$PORT"
ARTIFACT="org.opensearch.distribution.integ-test-zip:opensearch:$VERSION:zip"

log() { printf 'opensearch.sh: %s\n' "$*" >&2; }

install() {
  [ -x "$HOME_DIR/bin/opensearch" ] && return 0
  command -v java >/dev/null || { log "java is required (Java 17)"; exit 1; }
  command -v mvn >/dev/null || { log "maven is required to fetch $ARTIFACT"; exit 1; }
  mkdir -p "$CACHE"
  local tmp; tmp="$(mktemp -d)"
  log "fetching $ARTIFACT from Maven Central"
  mvn -q -B dependency:copy -Dartifact="$ARTIFACT" -DoutputDirectory="$tmp" -Dmdep.stripVersion=false
  python3 - "$tmp/opensearch-$VERSION.zip" "$tmp/x" <<'PY'
import sys, zipfile
zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])
PY
  rm -rf "$HOME_DIR"
  mv "$tmp/x/opensearch-$VERSION" "$HOME_DIR"
  chmod +x "$HOME_DIR"/bin/*
  rm -rf "$tmp"
}

status() { curl -fsS "$URL/_cluster/health" >/dev/null 2>&1; }

# What the clients need to reach this node (stdout: everything else goes to stderr).
print_exports() { printf 'export OPENSEARCH_URL=%s\n' "$URL"; }

start() {
  if status; then log "already answering on $URL"; print_exports; return 0; fi
  install
  mkdir -p "$RUN_DIR/data" "$RUN_DIR/logs"
  local conf="$RUN_DIR/config"
  rm -rf "$conf"; cp -r "$HOME_DIR/config" "$conf"
  cat > "$conf/opensearch.yml" <<YML
cluster.name: neardup-dev
node.name: neardup-dev-$PORT
network.host: 127.0.0.1
http.port: $PORT
transport.port: $((PORT + 100))
discovery.type: single-node
path.data: $RUN_DIR/data
path.logs: $RUN_DIR/logs
cluster.routing.allocation.disk.threshold_enabled: false
action.auto_create_index: true
YML
  # The integ-test distribution runs as any user except root; Java 17 is fine for 2.x.
  local user_prefix=()
  if [ "$(id -u)" = 0 ]; then
    id opensearch >/dev/null 2>&1 || useradd -r -M -s /usr/sbin/nologin opensearch
    chown -R opensearch "$RUN_DIR" "$HOME_DIR"
    # That user must reach the cache: a checkout in a private directory (mktemp -d: mode 700)
    # would stop it. Give others the right to pass through (x, not to list) each directory above.
    local d="$CACHE"
    while [ "$d" != "/" ]; do
      [ -n "$(find "$d" -maxdepth 0 -perm -o+x)" ] || chmod o+x "$d"
      d="$(dirname "$d")"
    done
    user_prefix=(runuser -u opensearch --)
  fi
  log "starting OpenSearch $VERSION on $URL (heap $HEAP)"
  export OPENSEARCH_JAVA_HOME="${OPENSEARCH_JAVA_HOME:-${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}}"
  OPENSEARCH_PATH_CONF="$conf" OPENSEARCH_JAVA_OPTS="-Xms$HEAP -Xmx$HEAP ${OPENSEARCH_EXTRA_JAVA_OPTS:-}" \
    setsid "${user_prefix[@]}" "$HOME_DIR/bin/opensearch" -d -p "$PID_FILE" >"$RUN_DIR/logs/stdout.log" 2>&1 \
    || { log "start failed"; tail -n 50 "$RUN_DIR/logs/stdout.log" >&2; exit 1; }
  wait_ready
  print_exports
}

wait_ready() {
  local deadline=$((SECONDS + ${OPENSEARCH_START_TIMEOUT:-180}))
  until curl -fsS "$URL/_cluster/health?wait_for_status=yellow&timeout=5s" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      log "not ready after ${OPENSEARCH_START_TIMEOUT:-180}s; last log lines:"
      tail -n 40 "$RUN_DIR/logs/"*.log >&2 || true
      exit 1
    fi
    sleep 1
  done
  log "ready on $URL"
}

stop() {
  [ -f "$PID_FILE" ] || { log "not started by this script"; return 0; }
  local pid; pid="$(cat "$PID_FILE")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$PID_FILE"
  log "stopped"
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  wait) wait_ready ;;
  *) echo "usage: $0 install|start|stop|status|wait" >&2; exit 2 ;;
esac
