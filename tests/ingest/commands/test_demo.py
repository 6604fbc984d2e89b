"""``scripts/dev demo``: the sample pages in examples/ group as examples/README.md says, and the
demo's report says what it should find and whether it did."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "examples" / "sample_pages.jsonl"


def test_sample_sources_are_given_as_rst() -> None:
    docs = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    sources = [d for d in docs if d["id"].startswith("py/_sources/")]
    assert len(sources) == 10
    assert all("rst" in d and "text" not in d for d in sources)  # reST is read as reST


def test_demo_finds_every_expected_pair(tmp_path: Path) -> None:
    out = tmp_path / "groups.jsonl"
    dedup = subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", "dedup", str(SAMPLE), "-o", str(out),
         "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert dedup.returncode == 0, dedup.stderr
    show = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "show_groups.py"), str(SAMPLE), str(out)],
        capture_output=True, text=True, timeout=60,
    )
    assert show.stdout.startswith(
        "Expected: 18 groups of two — 10 Python doc pages (HTML) each with its reST source, "
        "8 man pages each with its shortened mirror."
    )
    assert "Found 18 of the 18 expected pairs." in show.stdout, show.stdout
    assert "not grouped" not in show.stdout and show.returncode == 0


def test_demo_reports_a_missed_pair(tmp_path: Path) -> None:
    docs = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    rows = [{"id": d["id"], "dup_group": d["id"], "dup_of": None, "resemble": None,
             "contain": None} for d in docs]  # fmt: skip
    out = tmp_path / "nothing-grouped.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    show = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "show_groups.py"), str(SAMPLE), str(out)],
        capture_output=True, text=True, timeout=60,
    )
    assert show.returncode == 1
    assert "Found 0 of the 18 expected pairs." in show.stdout
    assert "not grouped: py/library/posix.html  and  py/_sources/library/posix.rst.txt" in show.stdout
