"""The pipeline of a plain install (``pip install .``, not editable: tests/support/installed.py),
run from the repository's root: ``neardup dedup --backend opensearch --start-workers 2`` — the
wheel's command, whose workers (``python -m celery`` of that venv) start from the root too —
groups the sample pages as the embedded backend does."""

from __future__ import annotations

import json
from pathlib import Path

from support.installed import ROOT, Installed

SAMPLE = ROOT / "examples" / "sample_pages.jsonl"


def _groups(out: Path) -> dict[str, str]:
    return {r["id"]: r["dup_group"] for r in map(json.loads, out.read_text().splitlines())}


def test_the_installed_pipeline_works_from_the_repository_root(
    installed: Installed, opensearch_url: str, redis_url: str, tmp_path: Path
) -> None:
    embedded, engine = tmp_path / "embedded.jsonl", tmp_path / "engine.jsonl"
    proc = installed.run("neardup", "dedup", str(SAMPLE), "-o", str(embedded), "--no-progress")
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = installed.run(
        "neardup", "dedup", str(SAMPLE), "-o", str(engine), "--no-progress",
        "--backend", "opensearch", "--start-workers", "2", "--timeout", "600",
        timeout=900, OPENSEARCH_URL=opensearch_url, CELERY_BROKER_URL=redis_url,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    groups = _groups(engine)
    assert len(groups) == 36 and len(set(groups.values())) == 18
    assert groups == _groups(embedded)
