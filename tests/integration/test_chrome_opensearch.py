"""One site's chrome-heavy short pages through the real stack — OpenSearch, Redis and real
Celery workers (``neardup dedup --backend opensearch --start-workers``): different articles
inside one large header and footer stay apart, the edited copies of one of them group, and the
partition is the embedded backend's (both mask the chrome the whole input shows;
docs/chrome.md). Template siblings of one documentation site stay apart there too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.chrome_sites import EN_SITE, ZH_SITE, expected, partition
from support.sibling_sites import sibling_pages, twins

ROOT = Path(__file__).resolve().parents[2]


def _dedup(src: Path, out: Path, *extra: str, env: dict[str, str]) -> dict[str, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", "dedup", str(src), "-o", str(out),
         "--no-progress", *extra],
        cwd=ROOT, capture_output=True, text=True, timeout=900, env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert not [r for r in rows if "error" in r], rows
    return {r["id"]: r["dup_group"] for r in rows}


@pytest.mark.parametrize("site", [EN_SITE, ZH_SITE], ids=["en-chrome", "zh-chrome"])
def test_chrome_heavy_pages_stay_apart_through_the_pipeline(
    tmp_path: Path, opensearch_url: str, redis_url: str, index_name: str,
    site: tuple[list[dict[str, Any]], set[str]],
) -> None:
    pages, copies = site
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pages),
                   encoding="utf-8")
    env = dict(os.environ, OPENSEARCH_URL=opensearch_url, CELERY_BROKER_URL=redis_url)
    engine = _dedup(src, tmp_path / "engine.jsonl", "--backend", "opensearch", "--index",
                    index_name, "--start-workers", "2", "--timeout", "600", env=env)
    embedded = _dedup(src, tmp_path / "embedded.jsonl", env=env)
    assert partition(engine) == expected(pages, copies)
    assert engine == embedded  # the same groups, the same canonical members


def test_template_siblings_stay_apart_through_the_pipeline(
    tmp_path: Path, opensearch_url: str, redis_url: str, index_name: str,
) -> None:
    # The workers part pages of one site whose subjects differ as the embedded backend does
    # (neardup.ingest.pairs.site_verdict): each page groups with its twin only.
    pages = sibling_pages("docs.example")
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(p) + "\n" for p in pages), encoding="utf-8")
    env = dict(os.environ, OPENSEARCH_URL=opensearch_url, CELERY_BROKER_URL=redis_url)
    engine = _dedup(src, tmp_path / "engine.jsonl", "--backend", "opensearch", "--index",
                    index_name, "--start-workers", "2", "--timeout", "600", env=env)
    embedded = _dedup(src, tmp_path / "embedded.jsonl", env=env)
    assert partition(engine) == twins(pages)
    assert engine == embedded
