"""What an installation holds and where it works: one top-level import name, a verifier that
loads alone, a build that prints no warning, and a plain install (``pip install .``, not
editable) that works from the repository's root — nothing there shadows the installed package.
(Its pipeline, ``neardup dedup --backend opensearch --start-workers``, from the root too:
tests/integration/test_installed.py.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.installed import Installed

ROOT = Path(__file__).resolve().parent.parent

# What the algorithm must never pull in: the layers above it and the services' clients.
NOT_LOADED_BY_THE_VERIFIER = (
    "neardup.ingest", "neardup.evaluation", "neardup.api",
    "celery", "kombu", "redis", "opensearchpy", "elasticsearch", "elasticsearch8",
    "elastic_transport", "starlette", "uvicorn",
)
STORY = ("The river flooded the old town on Monday night. Residents were moved to the school on "
         "the hill, where volunteers served soup until morning. The mayor said the dikes built in "
         "1953 held for most of the night before a section gave way.")


def test_importing_the_verifier_loads_no_layer_above_it_nor_a_service_client() -> None:
    code = (
        "import importlib, json, pkgutil, sys\n"
        "import neardup.verifier as v\n"
        "for m in pkgutil.walk_packages(v.__path__, 'neardup.verifier.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    loaded = json.loads(out.stdout)
    assert any(m.startswith("neardup.verifier.") for m in loaded)
    bad = [m for m in loaded if m.startswith(NOT_LOADED_BY_THE_VERIFIER)]
    assert not bad, f"import neardup.verifier loaded {bad}"


def test_importing_the_front_door_configures_no_celery_app() -> None:
    code = (
        "import json, sys, neardup\n"
        "neardup.compare('one page of text', 'another page of text')\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    loaded = json.loads(out.stdout)
    assert "neardup.api" in loaded
    bad = [m for m in loaded if m.startswith(("celery", "kombu", "redis", "neardup.ingest.workers"))]
    assert not bad, f"import neardup loaded {bad}"


@pytest.mark.slow
def test_pip_install_puts_one_import_name_into_site_packages(installed: Installed) -> None:
    assert installed.added == {"neardup"}
    package = installed.site / "neardup"
    assert {p.name for p in package.iterdir() if p.is_dir()} >= {
        "ingest", "verifier", "evaluation", "mappings"}
    assert not [p for p in package.rglob("*") if p.is_symlink()]  # files, not the checkout's links
    # the compiled twins land beneath the one name, and the data files with them
    assert sorted(p.name.split(".")[0] for p in package.rglob("*.so")) == [
        "_candidates", "_chrome", "_fingerprint", "_lcs", "_records", "_sketch", "_words"]
    assert (package / "mappings" / "pages-template.json").is_file()
    assert (package / "mappings" / "dashboards" / "neardup.ndjson").is_file()
    assert (package / "ingest" / "server" / "static" / "index.html").is_file()
    assert sorted(p.name for p in (package / "ingest" / "workers").glob("*.lua"))


@pytest.mark.slow
def test_the_build_prints_no_warning(installed: Installed) -> None:
    # A Python warning of the build backend (setuptools: an experimental table, a data folder
    # outside the packages...) reads "<file>.py:<line>: <Category>: <message>".
    warnings = re.findall(r"^\s*\S+\.py:\d+: \w+: .*$", installed.build_log, flags=re.M)
    assert not warnings, "\n".join(warnings)


@pytest.mark.slow
def test_the_installed_package_works_from_the_repository_root(installed: Installed) -> None:
    code = (
        "import json, neardup, neardup.verifier\n"
        f"story = {STORY!r}\n"
        "similar = neardup.compare(story, story + ' Repairs start next week.').similar\n"
        "pages = [{'id': 'a', 'text': story}, {'id': 'b', 'text': 'Repost: ' + story},\n"
        "         {'id': 'c', 'text': 'A recipe for bread: flour, water, salt and a long rise.'}]\n"
        "groups = [(g.id, g.dup_group) for g in neardup.dedup(pages)]\n"
        "print(json.dumps({'file': neardup.verifier.__file__, 'similar': similar,\n"
        "                  'groups': groups}))\n"
    )
    proc = installed.run("python", "-c", code)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert Path(out["file"]).is_relative_to(installed.site)  # the wheel's copy, not the checkout
    assert out["similar"] is True
    assert out["groups"] == [["a", "a"], ["b", "a"], ["c", "c"]]
    # the command line, from the root: its embedded dedup on the sample pages
    proc = installed.run("neardup", "dedup", "examples/sample_pages.jsonl", "--no-progress")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stderr.splitlines()[-1])["groups"] == 18


@pytest.mark.slow
def test_the_pipeline_bench_runs_from_the_repository_root(
    installed: Installed, people_daily: Path
) -> None:
    # its smallest real run without services: `neardup dedup` on 200 and 400 pages of its corpus
    proc = installed.run("python", "bench/pipeline.py", "--skip-pipeline", "--dedup-docs", "200",
                         "--scale", "2", timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["docs"] for r in records if r.get("bench") == "dedup-embedded"] == [200, 400]
    assert set(records[-1]["summary"]["dedup_docs_s"]) == {"200", "400"}
