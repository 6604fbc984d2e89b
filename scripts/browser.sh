#!/usr/bin/env bash
# Installs what the headless-browser tests need: Debian's chromium, CJK fonts (the pages are
# often Chinese: without them screenshots show empty boxes) and the Python playwright package
# (which drives chromium through CDP; its own browser downloads are never used).
#
#   scripts/browser.sh install | status
#
# The tests launch /usr/bin/chromium (CHROMIUM_PATH overrides) with playwright's
# executable_path; under CI=true the browser test runs this script before starting.
set -euo pipefail
PY="${PYTHON:-python3}"
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
log() { printf 'browser.sh: %s\n' "$*" >&2; }

install() {
  if [ ! -x "$CHROMIUM" ] || ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; then
    log "installing Debian's chromium and fonts-noto-cjk"
    local sudo=(); [ "$(id -u)" = 0 ] || sudo=(sudo)
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get install -y -q chromium fonts-noto-cjk >/dev/null 2>&1 \
      || { "${sudo[@]}" apt-get update -q >/dev/null \
           && "${sudo[@]}" apt-get install -y -q chromium fonts-noto-cjk >/dev/null; }
  fi
  if ! "$PY" -c "import playwright" 2>/dev/null; then
    log "installing the playwright Python package"
    "$PY" -m pip install -q --disable-pip-version-check "playwright>=1.44"
  fi
  status
}

status() {
  [ -x "$CHROMIUM" ] || { log "no chromium at $CHROMIUM"; return 1; }
  "$PY" -c "import playwright" 2>/dev/null || { log "python package playwright missing"; return 1; }
  log "ok: $("$CHROMIUM" --version 2>/dev/null | tail -1), playwright $("$PY" -c 'from importlib.metadata import version; print(version("playwright"))')"
}

case "${1:-}" in
  install) install ;;
  status) status ;;
  *) echo "usage: scripts/browser.sh install|status" >&2; exit 2 ;;
esac
