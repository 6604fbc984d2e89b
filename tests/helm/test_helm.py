"""The Helm chart: lint, render and validate every ``ci/*-values.yaml`` variant, then check the
properties the chart promises (config checksum, secrets by reference only, restrictive security
context, probes that really check the processes, name lengths, documented values).

helm and kubeconform come from ``scripts/helm.sh`` (built from the Go module proxy, cached in
``.cache/bin``); the Kubernetes schemas from the kubernetes-validate package. When they cannot
be had, the tests fail under ``CI=true`` and are skipped elsewhere.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.ci import unavailable

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "helm" / "neardup"
VARIANTS = sorted(p.name.removesuffix("-values.yaml") for p in (CHART / "ci").glob("*-values.yaml"))

# Building helm from source takes minutes on a small machine the first time.
pytestmark = pytest.mark.timeout(3600)

SECRET_ENV = {"OPENSEARCH_USER", "OPENSEARCH_PASSWORD", "CELERY_BROKER_URL", "NEARDUP_TOKEN"}
PING = 'celery -A neardup.ingest.workers.app inspect ping -d "neardup@$HOSTNAME" --timeout 10'


@cache
def _tools() -> dict[str, str] | str:
    """scripts/helm.sh env after scripts/helm.sh install; a string is the reason of a failure."""
    script = ROOT / "scripts" / "helm.sh"
    try:
        proc = subprocess.run(
            [str(script), "install"], capture_output=True, text=True, timeout=3000, cwd=ROOT
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"scripts/helm.sh install failed: {exc}"
    if proc.returncode != 0:
        return f"scripts/helm.sh install failed: {proc.stderr[-3000:]}"
    env = subprocess.run(
        [str(script), "env"], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    tools = {}
    for line in env.splitlines():
        ((name, value),) = (part.split("=", 1) for part in shlex.split(line))
        tools[name] = value
    return tools


@pytest.fixture(scope="session")
def tools() -> dict[str, str]:
    found = _tools()
    if isinstance(found, str):
        unavailable(found)
    return found


def _values_args(variant: str) -> list[str]:
    return ["-f", str(CHART / "ci" / f"{variant}-values.yaml")]


def helm(tools: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [tools["HELM"], *args], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    if check and proc.returncode != 0:
        pytest.fail(f"helm {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}", pytrace=False)
    return proc


def render_text(tools: dict[str, str], *args: str, release: str = "neardup") -> str:
    return helm(
        tools, "template", release, str(CHART), "--kube-version", tools["KUBE_VERSION"], *args
    ).stdout


def render(tools: dict[str, str], *args: str, release: str = "neardup") -> list[dict[str, Any]]:
    docs = yaml.safe_load_all(render_text(tools, *args, release=release))
    return [d for d in docs if d]


def by_kind(manifests: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m for m in manifests if m["kind"] == kind]


def one(manifests: list[dict[str, Any]], kind: str, component: str) -> dict[str, Any]:
    found = [
        m
        for m in by_kind(manifests, kind)
        if m["metadata"]["labels"].get("app.kubernetes.io/component") == component
    ]
    assert len(found) == 1, f"expected one {kind} for {component}, got {len(found)}"
    return found[0]


def pod_specs(manifests: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    for m in manifests:
        if m["kind"] in ("Deployment", "Job"):
            yield f"{m['kind']}/{m['metadata']['name']}", m["spec"]["template"]["spec"]


# --- lint, render, validate -----------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_lint_strict(tools: dict[str, str], variant: str) -> None:
    proc = helm(tools, "lint", "--strict", str(CHART), *_values_args(variant), check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 chart(s) failed" in proc.stdout


@pytest.mark.parametrize("variant", VARIANTS)
def test_rendered_manifests_are_valid_kubernetes_objects(
    tools: dict[str, str], variant: str
) -> None:
    manifests = render_text(tools, *_values_args(variant))
    proc = subprocess.run(
        [
            tools["KUBECONFORM"],
            "-strict",
            "-summary",
            "-output",
            "json",
            "-kubernetes-version",
            tools["KUBE_VERSION"],
            "-schema-location",
            tools["KUBE_SCHEMA_LOCATION"],
            "-",
        ],
        input=manifests,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads(proc.stdout)["summary"]
    # A kind without a schema would be "skipped": every object must really be checked.
    assert summary["invalid"] == summary["errors"] == summary["skipped"] == 0, summary
    assert summary["valid"] == len([d for d in yaml.safe_load_all(manifests) if d])


def test_kubeconform_catches_an_invalid_object(tools: dict[str, str]) -> None:
    """The offline schemas are really applied (a missing schema would also pass silently)."""
    bad = render_text(tools).replace("readOnlyRootFilesystem: true", "readOnlyRootFilesystem: 1")
    proc = subprocess.run(
        [
            tools["KUBECONFORM"],
            "-strict",
            "-kubernetes-version",
            tools["KUBE_VERSION"],
            "-schema-location",
            tools["KUBE_SCHEMA_LOCATION"],
            "-",
        ],
        input=bad,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode != 0
    assert "readOnlyRootFilesystem" in proc.stdout


@pytest.mark.parametrize("variant", VARIANTS)
def test_notes_render(tools: dict[str, str], variant: str, tmp_path: Path) -> None:
    # `helm template` skips NOTES.txt and `helm install --dry-run` wants a cluster, so a copy
    # of the chart renders the notes as a named template into a ConfigMap.
    chart = tmp_path / "neardup"
    shutil.copytree(CHART, chart)
    notes = (chart / "templates" / "NOTES.txt").read_text(encoding="utf-8")
    (chart / "templates" / "NOTES.txt").unlink()
    (chart / "templates" / "_notes.tpl").write_text(
        '{{- define "test.notes" -}}\n' + notes + "\n{{- end }}\n", encoding="utf-8"
    )
    (chart / "templates" / "notes.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\n"
        'data:\n  notes: {{ include "test.notes" . | quote }}\n',
        encoding="utf-8",
    )
    out = helm(
        tools,
        "template",
        "neardup",
        str(chart),
        "--show-only",
        "templates/notes.yaml",
        *_values_args(variant),
    ).stdout
    text = yaml.safe_load(out)["data"]["notes"]
    assert "dashboards import" in text
    assert ("WARNING: no Celery broker is configured" in text) == (variant == "default")
    if variant != "minimal":
        assert "/inspector" in text


# --- configuration checksum -----------------------------------------------------------------


def _checksums(manifests: list[dict[str, Any]]) -> dict[str, str]:
    out = {}
    for m in by_kind(manifests, "Deployment"):
        annotations = m["spec"]["template"]["metadata"].get("annotations", {})
        if m["metadata"]["labels"]["app.kubernetes.io/component"] in ("serve", "worker"):
            out[m["metadata"]["name"]] = annotations.get("checksum/config", "")
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_checksum_annotation_present(tools: dict[str, str], variant: str) -> None:
    sums = _checksums(render(tools, *_values_args(variant)))
    assert sums
    for name, value in sums.items():
        assert re.fullmatch(r"[0-9a-f]{64}", value), f"{name}: {value!r}"


def test_checksum_changes_with_config_only(tools: dict[str, str]) -> None:
    base = _checksums(render(tools))
    changed = _checksums(render(tools, "--set", "opensearch.index=news"))
    profile = _checksums(render(tools, "--set", "config.profile=short"))
    unrelated = _checksums(render(tools, "--set", "worker.replicaCount=7"))
    assert set(base.values()) == {next(iter(base.values()))}, "one ConfigMap, one checksum"
    for name in base:
        assert changed[name] != base[name]
        assert profile[name] != base[name]
        assert unrelated[name] == base[name]


# --- secrets: references only ---------------------------------------------------------------


def _env(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in container.get("env", [])}


@pytest.mark.parametrize("variant", VARIANTS)
def test_secrets_are_only_referenced(tools: dict[str, str], variant: str) -> None:
    manifests = render(tools, *_values_args(variant))
    assert not by_kind(manifests, "Secret"), "the chart must not create Secrets"
    for cm in by_kind(manifests, "ConfigMap"):
        for key, value in cm["data"].items():
            assert not re.search("PASSWORD|TOKEN|SECRET", key), key
            assert not re.search(r"://[^/@\s]+:[^/@\s]+@", value), f"credentials in {key}"
    for where, spec in pod_specs(manifests):
        for container in spec["containers"]:
            for name, entry in _env(container).items():
                if name in SECRET_ENV and "value" in entry:
                    # Only the in-cluster Redis URL (no password) may be a plain value.
                    assert name == "CELERY_BROKER_URL" and "@" not in entry["value"], where


def test_existing_secrets_wired(tools: dict[str, str]) -> None:
    manifests = render(tools, *_values_args("existing-secrets"))
    expected = {
        "OPENSEARCH_USER": ("neardup-opensearch", "user"),
        "OPENSEARCH_PASSWORD": ("neardup-opensearch", "pass"),
        "CELERY_BROKER_URL": ("neardup-broker", "url"),
    }
    for where, spec in pod_specs(manifests):
        env = _env(spec["containers"][0])
        for name, (secret, key) in expected.items():
            ref = env[name]["valueFrom"]["secretKeyRef"]
            assert (ref["name"], ref["key"]) == (secret, key), where
    serve = one(manifests, "Deployment", "serve")["spec"]["template"]["spec"]
    token = _env(serve["containers"][0])["NEARDUP_TOKEN"]["valueFrom"]["secretKeyRef"]
    assert token == {"name": "neardup-api", "key": "token"}
    # The private CA is mounted where OPENSEARCH_CA_CERTS points.
    (cm,) = by_kind(manifests, "ConfigMap")
    ca = cm["data"]["OPENSEARCH_CA_CERTS"]
    mounts = {m["name"]: m["mountPath"] for m in serve["containers"][0]["volumeMounts"]}
    assert ca == f"{mounts['opensearch-ca']}/root-ca.pem"


@pytest.mark.parametrize(
    "setting",
    [
        "opensearch.auth.password=hunter2",
        "opensearch.auth.user=admin",
        "broker.url=redis://:pw@redis:6379/0",
        "serve.auth.token=abc",
        "config.extraEnv.OPENSEARCH_PASSWORD=hunter2",
    ],
)
def test_plain_secret_values_are_rejected(tools: dict[str, str], setting: str) -> None:
    proc = helm(tools, "template", "neardup", str(CHART), "--set", setting, check=False)
    assert proc.returncode != 0, f"{setting} was accepted"
    assert "schema" in proc.stderr.lower() or "values don't meet" in proc.stderr.lower()


# --- security context -----------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_security_context_is_restrictive(tools: dict[str, str], variant: str) -> None:
    for where, spec in pod_specs(render(tools, *_values_args(variant))):
        pod = spec["securityContext"]
        assert pod["runAsNonRoot"] is True, where
        assert pod["seccompProfile"]["type"] == "RuntimeDefault", where
        assert spec["automountServiceAccountToken"] is False, where
        volumes = {v["name"]: v for v in spec.get("volumes", [])}
        for container in spec["containers"]:
            sc = container["securityContext"]
            assert sc["allowPrivilegeEscalation"] is False, where
            assert sc["readOnlyRootFilesystem"] is True, where
            assert sc["runAsNonRoot"] is True, where
            assert "ALL" in sc["capabilities"]["drop"], where
            assert not sc["capabilities"].get("add"), where
            assert sc.get("privileged") is not True, where
            assert "resources" in container and container["resources"].get("requests"), where
            if container["name"] != "redis":
                tmp = [m for m in container["volumeMounts"] if m["mountPath"] == "/tmp"]
                assert tmp and "emptyDir" in volumes[tmp[0]["name"]], f"{where}: writable /tmp"


# --- probes ---------------------------------------------------------------------------------


def test_serve_probes(tools: dict[str, str]) -> None:
    deploy = one(render(tools), "Deployment", "serve")
    (container,) = deploy["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["neardup"]
    args = container["args"]
    assert args[:5] == ["serve", "--host", "0.0.0.0", "--port", "8080"]
    assert args[args.index("--profile") + 1] == "$(NEARDUP_PROFILE)"
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"http": 8080}
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}


def test_worker_probe_pings_its_own_node(tools: dict[str, str]) -> None:
    deploy = one(render(tools), "Deployment", "worker")
    (container,) = deploy["spec"]["template"]["spec"]["containers"]
    args = container["args"]
    assert args[:3] == ["worker", "--concurrency", "2"]
    # The node name the probe pings is the one the worker is given.
    assert args[args.index("--hostname") + 1] == "neardup@%h"
    probe = container["livenessProbe"]
    command = probe["exec"]["command"]
    assert command[:2] == ["sh", "-c"]
    assert command[2] == f"exec {PING}"
    assert probe["timeoutSeconds"] > 10, "the probe must outlast the ping's own timeout"
    assert "readinessProbe" not in container  # a worker serves no traffic


def test_worker_concurrency_value(tools: dict[str, str]) -> None:
    deploy = one(render(tools, "--set", "worker.concurrency=6"), "Deployment", "worker")
    args = deploy["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[:3] == ["worker", "--concurrency", "6"]


# --- scaling, optional parts ----------------------------------------------------------------


def test_hpa_targets_workers(tools: dict[str, str]) -> None:
    manifests = render(tools, *_values_args("hpa-enabled"))
    hpa = one(manifests, "HorizontalPodAutoscaler", "worker")
    worker = one(manifests, "Deployment", "worker")
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": worker["metadata"]["name"],
    }
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (2, 20)
    (metric,) = hpa["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"
    assert metric["resource"]["target"]["averageUtilization"] == 70
    assert "replicas" not in worker["spec"], "the HPA owns the replica count"
    pdbs = by_kind(manifests, "PodDisruptionBudget")
    assert {p["metadata"]["labels"]["app.kubernetes.io/component"] for p in pdbs} == {
        "serve",
        "worker",
    }
    for pdb in pdbs:
        component = pdb["metadata"]["labels"]["app.kubernetes.io/component"]
        target = one(manifests, "Deployment", component)
        assert pdb["spec"]["selector"]["matchLabels"] == target["spec"]["selector"]["matchLabels"]


def test_in_cluster_redis_is_the_broker(tools: dict[str, str]) -> None:
    manifests = render(tools, *_values_args("in-cluster-redis"))
    service = one(manifests, "Service", "redis")
    one(manifests, "Deployment", "redis")
    (cm,) = by_kind(manifests, "ConfigMap")
    assert cm["data"]["CELERY_BROKER_URL"] == f"redis://{service['metadata']['name']}:6379/0"
    # An existing Secret wins over the in-cluster Redis.
    both = render(
        tools, *_values_args("in-cluster-redis"), "--set", "broker.existingSecret=external"
    )
    (cm,) = by_kind(both, "ConfigMap")
    assert "CELERY_BROKER_URL" not in cm["data"]


def test_templates_job_is_a_pre_install_hook(tools: dict[str, str]) -> None:
    manifests = render(tools, *_values_args("existing-secrets"))
    job = one(manifests, "Job", "templates")
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
    (container,) = job["spec"]["template"]["spec"]["containers"]
    assert container["args"] == ["templates", "install"]
    env = _env(container)
    # Inline env (the ConfigMap does not exist yet at pre-install) equal to the ConfigMap's.
    (cm,) = by_kind(manifests, "ConfigMap")
    for key, value in cm["data"].items():
        assert env[key]["value"] == value
    assert not by_kind(render(tools, *_values_args("minimal")), "Job")


def test_selectors_match_pod_labels_and_services(tools: dict[str, str]) -> None:
    manifests = render(tools, *_values_args("in-cluster-redis"))
    for deploy in by_kind(manifests, "Deployment"):
        selector = deploy["spec"]["selector"]["matchLabels"]
        labels = deploy["spec"]["template"]["metadata"]["labels"]
        assert selector.items() <= labels.items()
    for service in by_kind(manifests, "Service"):
        component = service["metadata"]["labels"]["app.kubernetes.io/component"]
        deploy = one(manifests, "Deployment", component)
        assert service["spec"]["selector"] == deploy["spec"]["selector"]["matchLabels"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_names_and_labels_fit_kubernetes_limits(tools: dict[str, str], variant: str) -> None:
    # Helm allows release names of up to 53 characters.
    release = "a-very-long-release-name-for-a-search-team-in-prod-xx"
    manifests = render(tools, *_values_args(variant), release=release)
    names = [m["metadata"]["name"] for m in manifests]
    assert len(names) == len(set((m["kind"], m["metadata"]["name"]) for m in manifests))
    for m in manifests:
        name = m["metadata"]["name"]
        assert len(name) <= 63 and re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", name), name
        labels = m["metadata"]["labels"]
        for key in ("name", "instance", "version", "managed-by", "part-of"):
            assert f"app.kubernetes.io/{key}" in labels, f"{name}: {key}"
        for value in labels.values():
            assert len(str(value)) <= 63, f"{name}: label {value!r}"


# --- values.yaml ----------------------------------------------------------------------------


def test_every_value_is_commented() -> None:
    """Every value in values.yaml has a comment above it, or sits in a block documented by a
    ``# -- ...`` comment (probe timings, resources, security contexts). Keys that only group
    other keys need no comment of their own."""
    lines = (CHART / "values.yaml").read_text(encoding="utf-8").splitlines()
    stack: list[tuple[int, bool]] = []  # (indent, documents its block) of enclosing keys
    comment: list[str] = []  # the comment lines right above the current line
    missing = []
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("#"):
            comment.append(stripped)
            continue
        match = re.match(r"^(\s*)([A-Za-z0-9_.-]+):(.*)$", line)
        if match:
            indent, rest = len(match.group(1)), match.group(3).strip()
            while stack and stack[-1][0] >= indent:
                stack.pop()
            inherited = any(documented for _, documented in stack)
            is_group = rest == ""
            if not (comment or inherited or is_group):
                missing.append(f"{number}: {stripped}")
            stack.append((indent, bool(comment) and comment[0].startswith("# --") and is_group))
        if not stripped.startswith("- "):
            comment = []
    assert not missing, "values without a comment:\n" + "\n".join(missing)


def test_schema_matches_values_yaml() -> None:
    """values.schema.json declares every key of values.yaml (it rejects unknown keys)."""
    schema = json.loads((CHART / "values.schema.json").read_text(encoding="utf-8"))
    values = yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))

    def walk(value: Any, node: dict[str, Any], path: str) -> None:
        if not isinstance(value, dict) or node.get("type") != "object":
            return
        props = node.get("properties")
        if props is None:
            return  # a free-form object (resources, securityContext, ...)
        for key, sub in value.items():
            assert key in props, f"{path}{key} is not in values.schema.json"
            walk(sub, props[key], f"{path}{key}.")

    walk(values, schema, "")
