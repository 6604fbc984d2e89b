#!/usr/bin/env bash
# Build neardup's image (Dockerfile) without an image registry: the Debian base is made with
# mmdebstrap, the image built with podman (vfs storage, chroot isolation: works unprivileged in
# a container, where overlay mounts and user namespaces may be missing).
#
#   scripts/image.sh install   Debian's mmdebstrap and podman (apt-get), when missing
#   scripts/image.sh base      mmdebstrap a bookworm minbase with python3 -> localhost/neardup-base
#   scripts/image.sh build     base (when missing), then the Dockerfile's last stage (`smoke`:
#                              the runtime image checked as the chart runs it) and the `runtime`
#                              stage tagged localhost/neardup:<version> (and :latest)
#   scripts/image.sh save FILE the runtime image as an OCI archive (podman load / docker load)
#
# Environment: NEARDUP_CACHE (<repo>/.cache) keeps the base tarball; IMAGE (localhost/neardup);
# KEEP_LAYERS=1 keeps the smoke image and the build layers (faster rebuilds, GBs with vfs);
# DEBIAN_MIRROR (deb.debian.org); the build's downloads (PyPI) trust the host's CA bundle
# ($PIP_CERT, $SSL_CERT_FILE or /etc/ssl/certs/ca-certificates.crt, mounted read-only into the
# build steps), so a TLS-inspecting proxy that the host trusts works inside the build too. `podman run` is not needed (nor possible everywhere): the
# checks run in the `smoke` build stage.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
CACHE="${NEARDUP_CACHE:-$PWD/.cache}"
IMAGE="${IMAGE:-localhost/neardup}"
BASE="localhost/neardup-base:bookworm"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
PODMAN=(podman --storage-driver=vfs)
log() { printf 'image.sh: %s\n' "$*" >&2; }

install() {
  command -v mmdebstrap >/dev/null && command -v podman >/dev/null && return 0
  log "installing Debian's mmdebstrap and podman"
  local sudo=(); [ "$(id -u)" = 0 ] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get install -y -q mmdebstrap podman >/dev/null 2>&1 \
    || { "${sudo[@]}" apt-get update -q >/dev/null && "${sudo[@]}" apt-get install -y -q mmdebstrap podman >/dev/null; }
}

version() { sed -n 's/^version = "\(.*\)"$/\1/p' pyproject.toml | head -1; }

base() {
  install
  if "${PODMAN[@]}" image exists "$BASE"; then return 0; fi
  mkdir -p "$CACHE/image"
  local tar="$CACHE/image/bookworm-python3.tar"
  if [ ! -s "$tar" ]; then
    log "mmdebstrap: bookworm minbase with python3"
    mmdebstrap --quiet --format=tar --variant=minbase --include=python3,ca-certificates bookworm "$tar.part" "$MIRROR"
    mv "$tar.part" "$tar"
  fi
  "${PODMAN[@]}" import --quiet "$tar" "$BASE" >/dev/null
  log "base image $BASE"
}

build() {
  base
  local v; v="$(version)"
  local args=(--isolation=chroot --build-arg "BASE=$BASE")
  local ca="${PIP_CERT:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}"
  [ -f "$ca" ] && args+=(--volume "$(readlink -f "$ca"):/etc/ssl/certs/ca-certificates.crt:ro")
  log "building $IMAGE:$v (stages build, runtime, smoke)"
  "${PODMAN[@]}" build "${args[@]}" -t "$IMAGE-smoke:$v" .
  "${PODMAN[@]}" build "${args[@]}" --target runtime -t "$IMAGE:$v" -t "$IMAGE:latest" .
  "${PODMAN[@]}" image inspect --format 'user={{.Config.User}} entrypoint={{.Config.Entrypoint}} size={{.Size}}' "$IMAGE:$v"
  # vfs keeps a full copy of the root per layer (GBs): drop the checked smoke image and the
  # untagged build layers unless KEEP_LAYERS=1 (a rebuild then starts from the base again).
  if [ "${KEEP_LAYERS:-0}" != 1 ]; then
    "${PODMAN[@]}" rmi "$IMAGE-smoke:$v" >/dev/null
    "${PODMAN[@]}" image prune -f >/dev/null
  fi
}

save() {
  [ -n "${1:-}" ] || { echo "usage: $0 save FILE" >&2; exit 2; }
  "${PODMAN[@]}" save --format oci-archive -o "$1" "$IMAGE:$(version)"
}

case "${1:-}" in
  install) install ;;
  base) base ;;
  build) build ;;
  save) shift; save "$@" ;;
  *) echo "usage: $0 install|base|build|save FILE" >&2; exit 2 ;;
esac
