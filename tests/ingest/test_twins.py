"""The compiled twins of ``ingest/``: one convention and one setting. Each ``_x.pyx`` stands
beside its front ``x.py`` and its pure-Python reference ``_x_py.py`` (with its types,
``_x.pyi``), is built by ``setup.py`` (every ``.pyx`` of the package), and ``NEARDUP_IMPL`` chooses for all of them
(:func:`neardup.verifier.implementation.select`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.ci import require_compiled

ROOT = Path(__file__).resolve().parents[2]
INGEST = ROOT / "ingest"
TWINS = sorted(p.stem[1:] for p in INGEST.glob("_*.pyx"))


def _built() -> dict[str, list[str]]:
    """What ``setup.py`` builds, as setuptools sees it: extension name → its sources."""
    import setuptools

    seen: dict[str, list[str]] = {}

    def capture(**kwargs: object) -> None:
        for ext in kwargs["ext_modules"]:  # type: ignore[attr-defined]
            seen[ext.name] = list(ext.sources)

    cwd = os.getcwd()
    real_setup = setuptools.setup
    try:
        os.chdir(ROOT)
        setuptools.setup = capture  # type: ignore[assignment]
        exec(compile((ROOT / "setup.py").read_text(encoding="utf-8"), "setup.py", "exec"), {})
    finally:
        setuptools.setup = real_setup
        os.chdir(cwd)
    return seen


def test_each_compiled_module_has_its_front_reference_types_and_build() -> None:
    assert TWINS, "no compiled module found"
    built = _built()
    for x in TWINS:
        for name in (f"{x}.py", f"_{x}_py.py", f"_{x}.pyi"):
            assert (INGEST / name).is_file(), f"ingest/_{x}.pyx has no ingest/{name}"
        assert built.get(f"neardup.ingest._{x}") == [f"src/neardup/ingest/_{x}.pyx"]
    # and no reference without its compiled twin
    assert sorted(p.stem[1:-3] for p in INGEST.glob("_*_py.py")) == TWINS


PROBE = """
import importlib, json, sys
print(json.dumps({x: importlib.import_module("neardup.ingest." + x).IMPLEMENTATION
                  for x in sys.argv[1:]}))
"""


@pytest.mark.parametrize("impl", ["python", "cython"])
def test_every_ingest_twin_follows_the_one_setting(impl: str) -> None:
    if impl == "cython":
        for x in TWINS:
            require_compiled(f"neardup.ingest._{x}")
    env = {**os.environ, "NEARDUP_IMPL": impl}
    out = subprocess.run([sys.executable, "-c", PROBE, *TWINS], env=env, capture_output=True,
                         text=True, cwd=ROOT / "tests")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == dict.fromkeys(TWINS, impl)
