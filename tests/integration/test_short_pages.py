"""Identical content always groups (issue 16): pages shorter than the fingerprint minimum, in
thousands of copies, share one group on both backends — in-process and through OpenSearch,
Redis and real Celery workers (``neardup dedup --backend opensearch --start-workers``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

TEXTS = {
    "latin": "Hello there.\nSee you soon, friend.",
    "word": "OK",
    "cjk": "你好",
}


def _write(path: Path, copies: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for kind, text in TEXTS.items():
            for i in range(copies):
                fh.write(json.dumps({"id": f"{kind}-{i:05d}", "text": text}) + "\n")
        # one page of real length next to them, to keep the short ones apart from it
        fh.write(json.dumps({"id": "article", "text": "A longer page about something else. " * 20}) + "\n")


def _dedup(src: Path, out: Path, *extra: str, env: dict[str, str] | None = None) -> list[dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", "dedup", str(src), "-o", str(out), "--no-progress",
         *extra],
        cwd=ROOT, capture_output=True, text=True, timeout=900, env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [json.loads(line) for line in out.read_text().splitlines()]


def _check(rows: list[dict], copies: int) -> None:
    assert not [r for r in rows if "error" in r]
    groups = Counter(r["dup_group"] for r in rows)
    by_kind = {kind: {r["dup_group"] for r in rows if r["id"].startswith(kind)} for kind in TEXTS}
    for kind, found in by_kind.items():
        assert found == {f"{kind}-00000"}, (kind, found)  # the earliest copy represents them
        assert groups[f"{kind}-00000"] == copies
    assert groups["article"] == 1


def test_identical_short_pages_share_a_group_embedded(tmp_path: Path) -> None:
    _write(tmp_path / "in.jsonl", 5000)
    _check(_dedup(tmp_path / "in.jsonl", tmp_path / "out.jsonl", "-j", "2"), 5000)


@pytest.mark.usefixtures("redis_url")
def test_identical_short_pages_share_a_group_opensearch(
    tmp_path: Path, opensearch_url: str, redis_url: str, index_name: str
) -> None:
    _write(tmp_path / "in.jsonl", 600)
    env = dict(os.environ, OPENSEARCH_URL=opensearch_url, CELERY_BROKER_URL=redis_url)
    rows = _dedup(
        tmp_path / "in.jsonl", tmp_path / "out.jsonl", "--backend", "opensearch",
        "--index", index_name, "--start-workers", "2", "--timeout", "600", env=env,
    )
    _check(rows, 600)
