"""What an installation holds: one top-level import name, and a verifier that loads alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# What the algorithm must never pull in: the layers above it and the services' clients.
NOT_LOADED_BY_THE_VERIFIER = (
    "neardup.ingest", "neardup.evaluation", "neardup.api",
    "celery", "kombu", "redis", "opensearchpy", "elasticsearch", "elasticsearch8",
    "elastic_transport", "starlette", "uvicorn",
)


def test_importing_the_verifier_loads_no_layer_above_it_nor_a_service_client() -> None:
    code = (
        "import importlib, json, pkgutil, sys\n"
        "import neardup.verifier as v\n"
        "for m in pkgutil.walk_packages(v.__path__, 'neardup.verifier.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT / "tests")
    loaded = json.loads(out.stdout)
    assert any(m.startswith("neardup.verifier.") for m in loaded)
    bad = [m for m in loaded if m.startswith(NOT_LOADED_BY_THE_VERIFIER)]
    assert not bad, f"import neardup.verifier loaded {bad}"


def _top_level(site: Path) -> set[str]:
    """Import names at the top of ``site`` (dist-info folders and caches are not names)."""
    names = set()
    for entry in site.iterdir():
        if entry.name.endswith((".dist-info", ".pth")) or entry.name == "__pycache__":
            continue
        names.add(entry.name.split(".")[0])
    return names


@pytest.mark.slow
def test_pip_install_puts_one_import_name_into_site_packages(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True).stdout.strip())
    before = _top_level(site)
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    proc = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(ROOT)],
        capture_output=True, text=True, env=env, timeout=1200,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert _top_level(site) - before == {"neardup"}
    installed = site / "neardup"
    assert {p.name for p in installed.iterdir() if p.is_dir()} >= {
        "ingest", "verifier", "evaluation", "mappings"}
    # the compiled twins land beneath the one name, and the data files with them
    assert sorted(p.name.split(".")[0] for p in installed.rglob("*.so")) == [
        "_candidates", "_chrome", "_fingerprint", "_lcs", "_records", "_sketch", "_words"]
    assert (installed / "mappings" / "pages-template.json").is_file()


def test_importing_the_front_door_configures_no_celery_app() -> None:
    code = (
        "import json, sys, neardup\n"
        "neardup.compare('one page of text', 'another page of text')\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT / "tests")
    loaded = json.loads(out.stdout)
    assert "neardup.api" in loaded
    bad = [m for m in loaded if m.startswith(("celery", "kombu", "redis", "neardup.ingest.workers"))]
    assert not bad, f"import neardup loaded {bad}"
