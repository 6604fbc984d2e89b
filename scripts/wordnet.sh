#!/usr/bin/env bash
# Install the WordNet 3.0 database that the DWDCS baseline reads (evaluation/baselines/wordnet.py).
#
#   scripts/wordnet.sh          install Debian's wordnet-base if the data is absent, print its dir
#   scripts/wordnet.sh check    exit 0 when the data is present, 1 otherwise
#
# Environment: NEARDUP_WORDNET_DIR (default /usr/share/wordnet) — where the baseline looks for
# data.noun, data.verb, data.adj, data.adv and the *.exc exception lists.
set -euo pipefail

DIR="${NEARDUP_WORDNET_DIR:-/usr/share/wordnet}"

log() { printf 'wordnet.sh: %s\n' "$*" >&2; }

present() {
  local pos
  for pos in noun verb adj adv; do
    [ -s "$DIR/data.$pos" ] || return 1
  done
}

case "${1:-install}" in
  check)
    present
    ;;
  install)
    if ! present; then
      if [ "$DIR" != /usr/share/wordnet ]; then
        log "no WordNet data in $DIR (NEARDUP_WORDNET_DIR); unset it to install the Debian package"
        exit 1
      fi
      command -v apt-get >/dev/null || { log "apt-get is required to install wordnet-base"; exit 1; }
      SUDO=""
      [ "$(id -u)" -eq 0 ] || SUDO="sudo"
      log "installing Debian package wordnet-base"
      $SUDO apt-get install -y --no-install-recommends wordnet-base >&2 \
        || { $SUDO apt-get update >&2 && $SUDO apt-get install -y --no-install-recommends wordnet-base >&2; }
      present || { log "wordnet-base installed but $DIR/data.noun is missing"; exit 1; }
    fi
    echo "$DIR"
    ;;
  *)
    log "usage: $0 [install|check]"
    exit 2
    ;;
esac
