"""The image the chart runs: ``Dockerfile`` built by ``scripts/image.sh build`` (a Debian base
made with mmdebstrap, podman with vfs storage and chroot isolation). The build's last stage
(``smoke``) checks the runtime image as the chart runs it — neardup, celery and the compiled
extensions work as uid 10001, no compiler, nothing writable outside /tmp — so a successful
build is the check; this test also reads the tagged runtime image's configuration.

Needs mmdebstrap and podman (``scripts/image.sh install``, run by ``scripts/dev setup``): the
test fails under ``CI=true`` without them and is skipped elsewhere.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from support.ci import unavailable

ROOT = Path(__file__).resolve().parents[2]
PODMAN = ["podman", "--storage-driver=vfs"]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(2400)]


def _version() -> str:
    found = re.search(r'^version = "(.+)"$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert found
    return found.group(1)


def test_dockerignore_keeps_caches_and_build_output_out_of_the_context() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    for name in (".cache", ".venv", ".git", "**/*.so", "**/__pycache__", "tests/artifacts"):
        assert name in ignored
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert dockerfile.count("\nFROM ") == 3  # build, runtime, smoke (last)
    assert re.search(r"^FROM runtime AS smoke$", dockerfile, re.M)


def test_image_builds_and_runs_as_the_chart_expects() -> None:
    if not (shutil.which("mmdebstrap") and shutil.which("podman")):
        unavailable("needs mmdebstrap and podman (scripts/image.sh install)")
    build = subprocess.run([str(ROOT / "scripts" / "image.sh"), "build"], cwd=ROOT,
                           capture_output=True, text=True, timeout=2300)  # fmt: skip
    assert build.returncode == 0, (build.stdout + build.stderr)[-6000:]
    log = build.stdout + build.stderr
    assert f"neardup {_version()}" in log  # the smoke stage ran `neardup --version`
    image = f"localhost/neardup:{_version()}"
    inspected = subprocess.run([*PODMAN, "image", "inspect", image], capture_output=True,
                               text=True, check=True).stdout  # fmt: skip
    config = json.loads(inspected)[0]["Config"]
    assert config["User"] == "10001:10001"
    assert config["Entrypoint"] == ["neardup"]
    assert any(e.startswith("PATH=/opt/neardup/bin:") for e in config["Env"])
    # the chart's securityContext and the image agree (uid 10001, read-only root, /tmp only)
    values = (ROOT / "helm" / "neardup" / "values.yaml").read_text()
    assert "runAsUser: 10001" in values and "readOnlyRootFilesystem: true" in values


def test_helm_script_keeps_its_tools_in_neardup_cache(tmp_path: Path) -> None:
    env = dict(os.environ, NEARDUP_CACHE=str(tmp_path / "cache"))
    out = subprocess.run([str(ROOT / "scripts" / "helm.sh"), "env"], env=env, cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert f"HELM={tmp_path}/cache/bin/helm" in out
    assert f"KUBECONFORM={tmp_path}/cache/bin/kubeconform" in out
