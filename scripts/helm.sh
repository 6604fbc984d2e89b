#!/usr/bin/env bash
# helm and kubeconform for the chart tests, built from the Go module proxy (release downloads
# are not reachable everywhere this runs) and cached under .cache/bin; Kubernetes JSON schemas
# taken from the kubernetes-validate package on PyPI and cached under .cache/kubernetes-json-schema
# (.cache is $NEARDUP_CACHE when set, as for the other scripts).
#
#   scripts/helm.sh install   build/copy whatever is missing (idempotent; a cached tool is reused)
#   scripts/helm.sh env       print HELM=, KUBECONFORM=, KUBE_SCHEMA_LOCATION=, KUBE_VERSION= lines
#   scripts/helm.sh lint      install, then helm lint --strict + kubeconform for every ci/*-values.yaml
#
# Versions are pinned here; change them here only.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"
PY="${PYTHON:-python3}"

HELM_VERSION="${HELM_VERSION:-v3.19.5}"
# Kubernetes minor version helm reports by default (helm's Makefile derives it from its
# k8s.io/client-go v0.34 dependency; `go install` alone would leave it at v1.20).
HELM_K8S_MINOR="${HELM_K8S_MINOR:-34}"
KUBECONFORM_VERSION="${KUBECONFORM_VERSION:-v0.7.0}"
KUBE_VERSION="${KUBE_VERSION:-1.31.0}"   # schemas the manifests are validated against
KUBERNETES_VALIDATE_VERSION="${KUBERNETES_VALIDATE_VERSION:-1.37.0}"

CACHE="${NEARDUP_CACHE:-$ROOT/.cache}"
BIN="$CACHE/bin"
SCHEMAS="$CACHE/kubernetes-json-schema"
HELM="$BIN/helm"
KUBECONFORM="$BIN/kubeconform"
SCHEMA_LOCATION="$SCHEMAS/{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json"

log() { echo "scripts/helm.sh: $*" >&2; }

need_go() {
  command -v go >/dev/null || { log "go is required to build helm/kubeconform"; exit 1; }
}

install_helm() {
  if [[ -x "$HELM" ]] && "$HELM" version --template '{{ .Version }}' 2>/dev/null | grep -qx "$HELM_VERSION"; then
    return
  fi
  need_go
  log "building helm $HELM_VERSION (go install; takes a few minutes on 2 cores)"
  local x="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
  x+=" -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$HELM_K8S_MINOR"
  x+=" -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$HELM_K8S_MINOR"
  GOBIN="$BIN" GOFLAGS="-buildvcs=false -trimpath" CGO_ENABLED=0 \
    go install -ldflags "$x" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
}

install_kubeconform() {
  if [[ -x "$KUBECONFORM" ]] && [[ -f "$BIN/.kubeconform-version" ]] \
      && [[ "$(cat "$BIN/.kubeconform-version")" == "$KUBECONFORM_VERSION" ]]; then
    return
  fi
  need_go
  log "building kubeconform $KUBECONFORM_VERSION (go install)"
  GOBIN="$BIN" GOFLAGS="-buildvcs=false -trimpath" CGO_ENABLED=0 \
    go install -ldflags "-s -w" "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
  echo "$KUBECONFORM_VERSION" > "$BIN/.kubeconform-version"
}

# kubeconform normally downloads schemas from GitHub. The kubernetes-validate wheel ships the
# same openapi2jsonschema output for many Kubernetes versions; its refs point at
# "/api/_definitions.json" under an "$id" of https://kubernetes.io/..., which only its own Python
# registry resolves, so "$id" is dropped and the refs are rewritten to the sibling file
# "_definitions.json", which kubeconform's file loader then reads from disk.
install_schemas() {
  local want="$SCHEMAS/v$KUBE_VERSION-local-strict/.complete"
  [[ -f "$want" ]] && return
  if ! "$PY" -c 'import kubernetes_validate' 2>/dev/null; then
    log "installing kubernetes-validate==$KUBERNETES_VALIDATE_VERSION (Kubernetes JSON schemas)"
    "$PY" -m pip install -q --disable-pip-version-check "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION"
  fi
  "$PY" - "$SCHEMAS" "$KUBE_VERSION" <<'PY'
import json, sys
from pathlib import Path
import kubernetes_validate

dest_root, version = Path(sys.argv[1]), sys.argv[2]
src_root = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"
for flavour in ("local", "local-strict"):
    src = src_root / f"v{version}-{flavour}"
    if not src.is_dir():
        known = sorted(p.name for p in src_root.iterdir())
        sys.exit(f"kubernetes-validate has no schemas for v{version} ({known})")
    dest = dest_root / src.name
    dest.mkdir(parents=True, exist_ok=True)
    for path in src.glob("*.json"):
        schema = json.loads(path.read_text(encoding="utf-8"))
        schema.pop("$id", None)  # refs then resolve against the file itself
        text = json.dumps(schema).replace('"/api/_definitions.json#', '"_definitions.json#')
        (dest / path.name).write_text(text, encoding="utf-8")
    (dest / ".complete").write_text("ok\n")
PY
}

install() {
  mkdir -p "$BIN" "$SCHEMAS"
  install_helm
  install_kubeconform
  install_schemas
}

print_env() {
  # Shell-quoted, so `eval "$(scripts/helm.sh env)"` works.
  printf 'HELM=%q\nKUBECONFORM=%q\nKUBE_SCHEMA_LOCATION=%q\nKUBE_VERSION=%q\n' \
    "$HELM" "$KUBECONFORM" "$SCHEMA_LOCATION" "$KUBE_VERSION"
}

lint() {
  install
  local chart="$ROOT/helm/neardup" values
  for values in "$chart"/ci/*-values.yaml; do
    echo "== $(basename "$values")"
    "$HELM" lint --strict "$chart" -f "$values"
    "$HELM" template neardup "$chart" -f "$values" --kube-version "$KUBE_VERSION" \
      | "$KUBECONFORM" -strict -summary -kubernetes-version "$KUBE_VERSION" \
          -schema-location "$SCHEMA_LOCATION" -
  done
}

case "${1:-}" in
  install) install ;;
  env) print_env ;;
  lint) lint ;;
  *) echo "usage: scripts/helm.sh install|env|lint" >&2; exit 2 ;;
esac
